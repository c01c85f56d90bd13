import type { ProtocolError } from "@modelcontextprotocol/server";
import type { FileBytes } from "./deferred.ts";
import { readFile, type SkillEntry } from "./entries.ts";
import { cacheHintsFor } from "./skills-list.ts";
import { readError, type SourceState } from "./source.ts";

/**
 * The answers of the hot methods, as every connection's handlers make them, for the HTTP layer's fast path. A
 * listing gives undefined where the SDK must answer instead (a bad cursor): the error is then made by the same code
 * as without the fast path, so it cannot differ. A read that fails gives the very error the SDK's handler throws for
 * it (made by the same function), so the file is read once however the request ends.
 */
export interface DirectAnswers {
	/**
	 * The file a `resources/read` of `uri` answers with, or the error the SDK's handler throws for that read. `owner`
	 * (the asking connection) has its own share of the large-read queue; without one, only the whole bound applies.
	 */
	read(uri: string, owner?: object): Promise<FileBytes | ProtocolError>;
	/** The server's name and version as 2026-07-28 results carry them, or undefined when it has more to say. */
	readonly serverInfo: { name: string; version: string } | undefined;
	/**
	 * The `skills/list` result at `cursor` for a session that negotiated `protocol` as UTF-8 JSON, the same bytes
	 * `JSON.stringify` gives of the handler's result, or undefined.
	 */
	listJson(cursor: string | undefined, protocol: string | undefined): Promise<Buffer | undefined>;
}

const COMMA = Buffer.from(",");
const CLOSE_LIST = Buffer.from("]");

/** The direct answers over the source's current state (the same plan, rules and entries the handlers read). */
export function directAnswers(state: () => SourceState, info: { name: string; version: string }): DirectAnswers {
	// Each held entry's JSON bytes, made once: an entry is reused as the same object while its files stay the same,
	// so a warm page is copied together from them (no page-long string built, measured and encoded again).
	const texts = new WeakMap<SkillEntry, Buffer>();
	const entryJson = (entry: SkillEntry): Buffer => {
		let text = texts.get(entry);
		if (text === undefined) {
			text = Buffer.from(JSON.stringify(entry));
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
		async read(uri, owner) {
			const { plan, rules } = state();
			const file = await readFile(plan, uri, rules, owner);
			return file === undefined || "code" in file ? readError(uri, file) : file;
		},
		async listJson(cursor, protocol) {
			const page = await list(cursor, protocol);
			if (!page) return undefined;
			// As JSON.stringify writes the page: members in order, those undefined left out; the entries from their bytes.
			const parts: Buffer[] = [];
			let before = "{";
			for (const [key, value] of Object.entries(page)) {
				if (value === undefined) continue;
				if (key !== "skills") {
					parts.push(Buffer.from(`${before}${JSON.stringify(key)}:${JSON.stringify(value)}`));
				} else {
					parts.push(Buffer.from(`${before}"skills":[`));
					page.skills.forEach((entry, at) => {
						if (at > 0) parts.push(COMMA);
						parts.push(entryJson(entry));
					});
					parts.push(CLOSE_LIST);
				}
				before = ",";
			}
			parts.push(Buffer.from(before === "{" ? "{}" : "}"));
			return Buffer.concat(parts);
		},
	};
}
