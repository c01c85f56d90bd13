import { posix } from "node:path";
import type { Diagnostic, Severity } from "../skill/index.ts";
import { readContained } from "./contain.ts";
import { allResources, listResources } from "./resources.ts";

/** Codes of the reference graph's diagnostics. */
export type ReferenceCode = "refs.missing" | "refs.deep" | "refs.orphan";

/** The reference graph's codes: severity, meaning and fix. */
export const REFERENCE_CODES: Readonly<
	Record<ReferenceCode, { severity: Severity; description: string; hint: string }>
> = {
	"refs.missing": {
		severity: "error",
		description: "A link or path in the skill points at a file that does not exist.",
		hint: "Fix the path (relative to the skill folder) or add the file.",
	},
	"refs.deep": {
		severity: "warning",
		description: "A file is reached only through another referenced file (more than one hop from SKILL.md).",
		hint: "Link it from SKILL.md directly: agents may not follow chains of references.",
	},
	"refs.orphan": {
		severity: "info",
		description: "A bundled file is not referenced from SKILL.md or its references.",
		hint: "Mention it in SKILL.md (say when to read or run it), or remove it.",
	},
};

/** One reference: from a file, to a file, on a line; `hops` is the distance of the target from SKILL.md. */
export interface ReferenceEdge {
	from: string;
	to: string;
	line: number;
	exists: boolean;
}

/** The skill's reference graph: edges, how many hops each file is from SKILL.md, and the problems found. */
export interface ReferenceGraph {
	edges: ReferenceEdge[];
	hops: Record<string, number>;
	diagnostics: Diagnostic<ReferenceCode>[];
}

// `[` right after a word or a bracket is code (`handlers["parse"](payload)`), not a link.
const LINK = /(?<![\w\])])!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+["'][^"']*["'])?\s*\)/g;
const RESOURCE_PATH = /(?:^|[\s`'"(=])((?:\.\/)?(?:scripts|references|assets)\/[\w@%+~.,/-]*[\w/-])/g;
const BARE_FILE = /(?:^|[\s`'"(])([\w-]+\.(?:md|txt|py|sh|js|ts|json|ya?ml|csv))(?=$|[\s`'"),.:;])/g;
const TEXT_FILE = /\.(md|markdown|txt)$/i;

/**
 * Resolves the links and relative paths in SKILL.md (and, one level further, in the text files it references)
 * against the skill folder: missing targets are errors, files reached only through another file are warnings,
 * and bundled files nothing references are info. Only Markdown links and paths into a resource folder the skill
 * has can be missing; code (fenced blocks, inline spans) and prose that merely looks like a path never are.
 */
export function buildReferenceGraph(dir: string, skillFile = "SKILL.md"): ReferenceGraph {
	const files = new Set(allResources(listResources(dir, { maxFiles: 2000 })));
	const edges: ReferenceEdge[] = [];
	const hops: Record<string, number> = { [skillFile]: 0 };
	const diagnostics: Diagnostic<ReferenceCode>[] = [];
	let frontier = [skillFile];
	for (let hop = 1; frontier.length > 0; hop++) {
		const next: string[] = [];
		for (const from of frontier) {
			for (const edge of referencesIn(dir, from, files)) {
				edges.push(edge);
				if (!edge.exists) {
					diagnostics.push(diagnostic("refs.missing", `'${edge.to}' does not exist`, posix.join(dir, from), edge.line));
				} else if (hops[edge.to] === undefined) {
					hops[edge.to] = hop;
					if (hop > 1) {
						const message = `'${edge.to}' is reached only through '${from}' (${hop} hops from ${skillFile})`;
						diagnostics.push(diagnostic("refs.deep", message, posix.join(dir, from), edge.line));
					}
					if (TEXT_FILE.test(edge.to)) next.push(edge.to);
				}
			}
		}
		frontier = next;
	}
	for (const file of files) {
		if (hops[file] === undefined) {
			diagnostics.push(diagnostic("refs.orphan", `'${file}' is not referenced`, posix.join(dir, file)));
		}
	}
	return { edges, hops, diagnostics };
}

function referencesIn(dir: string, from: string, files: ReadonlySet<string>): ReferenceEdge[] {
	const read = readContained(dir, from, { maxBytes: 1 << 20, allowHardLinks: true });
	if (!read.ok) return [];
	const edges: ReferenceEdge[] = [];
	const seen = new Set<string>();
	const folders = new Set([...files].map((file) => file.split("/")[0]));
	for (const { prose, code, number } of splitCode(new TextDecoder().decode(read.bytes))) {
		const add = (raw: string, mustExist: boolean) => {
			const to = resolveTarget(raw, from, files);
			if (to === undefined || seen.has(to) || to === from || isFolder(to, files)) return;
			const exists = files.has(to);
			if (!exists && !mustExist) return;
			seen.add(to);
			edges.push({ from, to, line: number, exists });
		};
		// Prose: a Markdown link to something path-like must exist; a bare path must exist when it names a resource
		// folder the skill has (`references/` with no references folder is talk about some other project).
		for (const match of prose.matchAll(LINK)) add(match[1] ?? "", /[./]/.test(match[1] ?? ""));
		for (const match of prose.matchAll(RESOURCE_PATH)) {
			const path = (match[1] ?? "").replace(/^\.\//, "");
			add(path, folders.has(path.split("/")[0]));
		}
		for (const match of prose.matchAll(BARE_FILE)) add(match[1] ?? "", false);
		// Code (fenced blocks and inline spans) is never a broken reference, but naming a bundled file still uses it.
		for (const match of code.matchAll(RESOURCE_PATH)) add(match[1] ?? "", false);
		for (const match of code.matchAll(BARE_FILE)) add(match[1] ?? "", false);
	}
	return edges;
}

/** Each line's prose (code spans blanked) and code (fenced block lines and inline spans), with its number. */
function splitCode(text: string): { prose: string; code: string; number: number }[] {
	const lines: { prose: string; code: string; number: number }[] = [];
	let fence: string | undefined;
	for (const [index, line] of text.split("\n").entries()) {
		const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
		if (fence !== undefined) {
			if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker)
				fence = undefined;
			lines.push({ prose: "", code: line, number: index + 1 });
			continue;
		}
		if (marker) {
			fence = marker;
			lines.push({ prose: "", code: "", number: index + 1 });
			continue;
		}
		const spans: string[] = [];
		const prose = line.replace(/(`+)([^`]|[^`].*?[^`])\1(?!`)/g, (_all, _ticks: string, inner: string) => {
			spans.push(inner);
			return " ";
		});
		lines.push({ prose, code: spans.join(" "), number: index + 1 });
	}
	return lines;
}

/** The target as a path relative to the skill folder, or undefined for URLs, anchors and absolute paths. */
function resolveTarget(raw: string, from: string, files: ReadonlySet<string>): string | undefined {
	const target = decodeSafely(raw.replace(/[#?].*$/, "")).replace(/[.,:;]+$/, "");
	if (target === "" || /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("/") || target.startsWith("~"))
		return undefined;
	if (target.includes("{") || target.includes("$")) return undefined;
	const fromRoot = posix.normalize(target);
	const fromFile = posix.normalize(posix.join(posix.dirname(from), target));
	const candidate = files.has(fromFile) ? fromFile : fromRoot;
	return candidate.startsWith("../") || candidate === ".."
		? undefined
		: candidate.replace(/^\.\//, "").replace(/\/$/, "");
}

function isFolder(path: string, files: ReadonlySet<string>): boolean {
	for (const file of files) if (file.startsWith(`${path}/`)) return true;
	return false;
}

function decodeSafely(text: string): string {
	try {
		return decodeURIComponent(text);
	} catch {
		return text;
	}
}

function diagnostic(code: ReferenceCode, message: string, file: string, line?: number): Diagnostic<ReferenceCode> {
	const info = REFERENCE_CODES[code];
	return { code, severity: info.severity, message, file, ...(line ? { line } : {}), hint: info.hint };
}
