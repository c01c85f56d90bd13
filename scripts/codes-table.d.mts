export function renderCodesTable(
	codes: Readonly<Record<string, { strict: string | null; lenient: string | null; description: string }>>,
): string;
export function replaceCodesTable(readme: string, table: string): string;
