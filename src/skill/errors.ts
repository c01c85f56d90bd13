// A second public entry of the `skill/` stage, beside `index.ts`: the one error class. Checking an option (discovery's
// `validateDiscoverOptions`, on every command) must be able to throw it without loading the whole skill stage, whose
// entry brings the parser, the validators and the code table: an empty scan never needs them (the start-up bar).

/** Codes of {@link SkillsetError}: programming errors and misuse, never problems in a skill. */
export type SkillsetErrorCode = "internal" | "invalid-argument" | "invalid-option" | "sandbox.unavailable";

/**
 * The one error class skillset throws. It marks programmer errors (a wrong argument, a broken invariant);
 * anything wrong with a skill is a diagnostic instead.
 */
export class SkillsetError extends Error {
	readonly code: SkillsetErrorCode;
	readonly data: unknown;

	constructor(code: SkillsetErrorCode, message: string, options: { data?: unknown; cause?: unknown } = {}) {
		super(message, { cause: options.cause });
		this.name = "SkillsetError";
		this.code = code;
		this.data = options.data;
	}
}
