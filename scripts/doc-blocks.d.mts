export function generatedBlocks(): Promise<Map<string, string>>;
export function blockNames(text: string): string[];
export function refreshBlocks(text: string, blocks: ReadonlyMap<string, string>, page: string): string;
