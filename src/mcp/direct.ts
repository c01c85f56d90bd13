import type { FileBytes } from "./deferred.ts";
import { readFile, type SkillEntry } from "./entries.ts";
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
	/** The server's name and version as 2026-07-28 results carry them, or undefined when it has more to say. */
	readonly serverInfo: { name: string; version: string } | undefined;
	/** {@link list}'s result as JSON text, the same bytes `JSON.stringify` gives, or undefined. */
	listJson(cursor: string | undefined, protocol: string | undefined): Promise<string | undefined>;
}

/** The direct answers over the source's current state (the same plan, rules and entries the handlers read). */
export function directAnswers(state: () => SourceState, info: { name: string; version: string }): DirectAnswers {
	// Each held entry's JSON, made once: an entry is reused as the same object while its files stay the same.
	const texts = new WeakMap<SkillEntry, string>();
	const entryJson = (entry: SkillEntry): string => {
		let text = texts.get(entry);
		if (text === undefined) {
			text = JSON.stringify(entry);
			texts.set(entry, text);
		}
		return text;
	};
	const list = async (cursor: string | undefined, protocol: string | undefined) => {
		const { plan, entries, listSize, warn } = state();
		try {
			return { ...(await entries.page(plan, cursor, listSize, warn)), ...cacheHintsFor(protocol) };
		} catch {
			return undefined;
		}
	};

	const plain = Object.keys(info).every((key) => key === "name" || key === "version");
	return {
		serverInfo: plain ? { name: info.name, version: info.version } : undefined,
		async read(uri) {
			const { plan, rules } = state();
			const file = await readFile(plan, uri, rules);
			return file === undefined || "code" in file ? undefined : file;
		},
		list,
		async listJson(cursor, protocol) {
			const page = await list(cursor, protocol);
			if (!page) return undefined;
			// As JSON.stringify writes the page: members in order, those undefined left out; the entries from their texts.
			const members: string[] = [];
			for (const [key, value] of Object.entries(page)) {
				if (value === undefined) continue;
				const json = key === "skills" ? `[${page.skills.map(entryJson).join(",")}]` : JSON.stringify(value);
				members.push(`${JSON.stringify(key)}:${json}`);
			}
			return `{${members.join(",")}}`;
		},
	};
}
