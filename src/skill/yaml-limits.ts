// The frontmatter parser's bounds, apart from the parser: the persistent index checks saved values against them
// without loading it.

/** Deepest nesting accepted, counting flow brackets before parsing and all collections after. */
export const MAX_YAML_DEPTH = 32;
/** Most keys accepted: duplicate-key checking is quadratic in the key count. */
export const MAX_YAML_KEYS = 1000;
