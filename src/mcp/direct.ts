import type { FileBytes } from "./deferred.ts";
import { readFile } from "./entries.ts";
import { cacheHintsFor, type SkillsPage } from "./skills-list.ts";
import type { SourceState } from "./source.ts";

/**
 * The answers of the hot methods, as every connection's handlers make them, for the HTTP layer's fast path. Each
 * gives undefined where the SDK must answer instead (no such file, a refusal, a bad cursor): the error is then made
 * by the same code as without the fast path, so it cannot differ.
 */
export interface DirectAnswers {
	/** The file a `resources/read` of `uri` answers with, or undefined. */
	read(uri: string): Promise<FileBytes | undefined>;
	/** The `skills/list` result at `cursor` for a session that negotiated `protocol`, or undefined. */
	list(cursor: string | undefined, protocol: string | undefined): Promise<SkillsPage | undefined>;
}

/** The direct answers over the source's current state (the same plan, rules and entries the handlers read). */
export function directAnswers(state: () => SourceState): DirectAnswers {
	return {
		async read(uri) {
			const { plan, rules } = state();
			const file = await readFile(plan, uri, rules);
			return file === undefined || "code" in file ? undefined : file;
		},
		async list(cursor, protocol) {
			const { plan, entries, pageSize, warn } = state();
			try {
				return { ...(await entries.page(plan, cursor, pageSize, warn)), ...cacheHintsFor(protocol) };
			} catch {
				return undefined;
			}
		},
	};
}
