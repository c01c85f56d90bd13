// The `catalog/` stage (tier 1): rendering, token counting, budget fitting and the catalog report.
// Later stages import only from this file.

export type { SearchDocument, SearchHit } from "./bm25.ts";
export { Bm25Index, tokenize } from "./bm25.ts";
export type { BudgetUnit, FitStep } from "./budget.ts";
export { cutAtWord, DEFAULT_FLOOR_WORDS, ELLIPSIS } from "./budget.ts";
export type { Catalog, CatalogBudget, CatalogOptions, CatalogReport } from "./catalog.ts";
export { buildCatalog, catalogEntries, DEFAULT_BUDGET_FRACTION, resolveBudget } from "./catalog.ts";
export type { ActivationMode, PromptSectionOptions } from "./prompt.ts";
export { systemPromptSection } from "./prompt.ts";
export type { CatalogEntry, CatalogFormat, RenderOptions } from "./render.ts";
export { CATALOG_FORMATS, escapeXml, renderCatalog } from "./render.ts";
export { foldField, foldPath, listText, neutralizeTags } from "./safe-text.ts";
export type { Tokenizer } from "./tokenizer.ts";
export { estimateTokenizer, loadDefaultTokenizer } from "./tokenizer.ts";
