import type { ParseArgsConfig } from "node:util";
import { editDistance } from "../discovery/index.ts";

/**
 * "Did you mean" for a mistyped command or flag. Kept in the CLI (not the index's `closest`) so that a usage
 * mistake loads no stage of the library.
 */
export function closestWord(word: string, candidates: readonly string[]): string | undefined {
	const limit = Math.max(1, Math.floor(word.length / 3));
	let best: { candidate: string; score: number } | undefined;
	for (const candidate of candidates) {
		// A prefix of a long flag (`--al` for `--all`) is what people type first.
		const score = candidate.startsWith(word) ? 0.5 + candidate.length / 1000 : editDistance(word, candidate);
		if (score <= limit && (!best || score < best.score)) best = { candidate, score };
	}
	return best?.candidate;
}

/** What parseArgs's error says, in our words: the flag, and the closest flag the command has. */
export function describeParseError(
	error: Error & { code?: string },
	options: NonNullable<ParseArgsConfig["options"]>,
): string {
	const flag = /'(-{1,2}[^'\s]*)/.exec(error.message)?.[1];
	if (error.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && flag) {
		const flags = Object.entries(options).flatMap(([name, option]) => [
			`--${name}`,
			...(option.short ? [`-${option.short}`] : []),
		]);
		const near = closestWord(flag.replace(/=.*$/, ""), flags);
		return `unknown option '${flag}'${near ? `; did you mean '${near}'?` : ""}`;
	}
	if (error.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && flag) {
		const name = flag.replace(/^-+/, "");
		const option = options[name] ?? Object.values(options).find((o) => o.short === name);
		return option?.type === "boolean" ? `${flag} takes no value` : `${flag} needs a value`;
	}
	return error.message;
}
