type Table = Readonly<
	Record<string, { strict?: string | null; lenient?: string | null; severity?: string; description: string }>
>;
export function renderSkillCodes(codes: Table): string;
export function renderSeverityCodes(name: string, codes: Table): string;
export function replaceBlock(readme: string, name: string, table: string): string;
export function renderAuditRules(
	rules: readonly { id: string; severity: string; title: string; why: string }[],
): string;
