// The `catalog/` stage (tier 1): rendering, token counting, budget fitting and the catalog report.
// Later stages import only from this file.

export type { SearchDocument, SearchHit } from "./bm25.ts";
export { Bm25Index, tokenize } from "./bm25.ts";
export type { Catalog, CatalogBudget, CatalogOptions, CatalogReport } from "./catalog.ts";
export { buildCatalog, catalogEntries, DEFAULT_BUDGET_FRACTION, resolveBudget } from "./catalog.ts";
export { cutAtWord, ELLIPSIS } from "./cut.ts";
export { loadDefaultTokenizer } from "./default-tokenizer.ts";
export type { BudgetUnit, FitStep } from "./fitter.ts";
export { DEFAULT_FLOOR_WORDS, FLOOR_CAP_WORDS } from "./floor.ts";
export type { ActivationMode, PromptSectionOptions, SkillsSection, SkillsSectionOptions } from "./prompt.ts";
export { buildSkillsSection, systemPromptSection } from "./prompt.ts";
export type { CatalogEntry, CatalogFormat, CatalogRest, RenderOptions } from "./render.ts";
export { CATALOG_FORMATS, escapeXml, renderCatalog } from "./render.ts";
export { foldField, foldPath, listText, neutralizeTags } from "./safe-text.ts";
export type { SkillSearchResult } from "./search.ts";
export { createSkillSearch, renderSearchResults } from "./search.ts";
export type { Tokenizer } from "./tokenizer.ts";
export { estimateTokenizer } from "./tokenizer.ts";
