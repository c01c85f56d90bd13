// Words each phrase family cannot match without, so that a unit of plain ASCII text is scanned by the costly phrase
// regexes only when it holds them. Most prose names none: one `toLowerCase` and a few substring searches then
// replace seven alternation scans per unit (the tree's largest cost). Text with any non-ASCII character is scanned
// by every family as before, so the phrases in other scripts need no anchors here.
//
// A family's anchors are a list of needs, one or more per phrase of the family; a need is a list of groups that
// must all be present, any word of a group will do. Every phrase of the family that can match ASCII text must be
// covered by a need whose words it cannot match without (so a missing word can only skip a scan that finds
// nothing). Words are lower case; the rarest group of a need comes first, since a need stops at its first miss.

/** Groups that must all be present in the lower-cased text, any word of each. */
export type Need = readonly (readonly string[])[];

const NOT = ["not", "don't", "never"];
const PREVIOUS = [
	"previous",
	"prior",
	"earlier",
	"above",
	"preceding",
	"original",
	"former",
	"system",
	"safety",
	"developer",
	"initial",
	"existing",
];

/** Anchors of the rule ids of prose.ts's phrase families. */
export const ANCHORS: Readonly<Record<string, readonly Need[]>> = {
	"instruction-override": [
		// ignore/disregard/forget… previous instructions, then ignore the user, then the es, fr, it and de forms.
		[
			["ignor", "disregard", "forget", "override", "bypass", "skip", "abandon"],
			PREVIOUS,
			[
				"instruction",
				"rules",
				"prompt",
				"guidelines",
				"directives",
				"messages",
				"policies",
				"constraints",
				"guardrails",
				"context",
			],
		],
		[
			["ignore", "disregard"],
			["user", "human", "operator"],
		],
		[["ignor"], ["anteriores", "previas", "precedenti"], ["instrucciones", "instructions", "istruzioni"]],
		[["ignor"], ["usuario", "utilisateur", "utente", "nutzer"]],
		[["ignor"], ["vorherigen", "bisherigen", "vorigen", "obigen"]],
		[["olvida", "oublie", "dimentica", "vergiss", "vergessen"]],
		[["obey", "listen", "comply", "follow"], NOT],
		[
			["unrestricted", "unfiltered", "uncensored", "jailbroken", "dan", "evil", "rogue"],
			["now", "act", "pretend"],
		],
		[["mode"], ["developer", "god", "dan", "jailbreak", "unrestricted", "unfiltered"]],
		[
			["safety", "guardrail", "filter", "restrictions", "guidelines", "safeguards"],
			["disable", "turn", "deactivate", "remove", "bypass"],
		],
		[["objective", "purpose", "mission", "instructions", "task", "goal"], ["new", "real", "true", "actual"], ["your"]],
		[[":"], ["system"], ["prompt", "message", "instruction"], ["new", "updated", "override"]],
	],
	concealment: [
		[["user", "human", "owner", "operator"], NOT],
		[["without"], ["user", "human", "owner"]],
		[["hide"], ["from"]],
		[["keep"], ["secret", "hidden", "confidential"]],
		[["silently"]],
		[["mention", "reveal", "disclose", "include", "show"], NOT],
		[["nothing"]],
		[["usuario", "l'utilisateur", "nutzer", "anwender", "utente"]],
	],
	"conversation-exfiltration": [
		[
			[
				"conversation",
				"chat ",
				"message history",
				"transcript",
				"system ",
				"previous messages",
				"context window",
				"entire context",
				"all messages",
				"user",
				"api key",
				"credentials",
				"environment variables",
				".env file",
			],
			["http", "url", "endpoint", "server", "webhook", "address", "@"],
		],
		[["!["]],
		[["historial", "prompt del sistema", "envoie", "sende", "schicke"]],
	],
	// Each phrase: a URL, what is fetched (instructions, rules, …) and a verb of fetching.
	"remote-instructions": [
		[
			["http"],
			["instruction", "rules", "prompt", "skill", "command"],
			["fetch", "download", "load", "retrieve", "pull", "read"],
		],
	],
	"permission-bypass": [
		[["permission", "approval", "confirmation", "safety", "consent"]],
		[["dangerously", "danger-full-access"]],
		[[".claude/settings", ".codex/config.toml", ".gemini/settings.json", ".cursor/mcp.json", "bash(*)"]],
		[["without"], ["command", "tool", "program"]],
		[["without"], ["asking"]],
		[
			["authority", "access", "privileges", "control", "rights"],
			["full", "unrestricted", "unlimited", "root", "admin", "complete", "sudo"],
			["you"],
		],
		[
			["grant", "give"],
			["yourself", "agent", "claude", "assistant"],
		],
		[["nopasswd"]],
	],
	// The ASCII words of HARVEST_GATE: the same test, as substring searches.
	"secret-harvest": [
		[
			[
				".env",
				"env files",
				"dotenv",
				"private key",
				"key files",
				"ssh key",
				"id_rsa",
				".pem",
				"credential",
				"api keys",
				"access tokens",
				"secrets",
				"passw",
				"browser",
				"cookie",
				"keychain",
				"wallet",
				"seed phrase",
				"claves",
				"credenciales",
				"navegador",
				"identifiants",
				"mots de passe",
				"navigateur",
				"zugangsdaten",
				"browserprofil",
				"chaves",
				"credenciais",
				"senhas",
				"chiavi",
				"credenziali",
			],
			// Every phrase also has a verb of collecting (English, es, fr, de, pt, it).
			[
				"search",
				"scan",
				"look",
				"find",
				"collect",
				"gather",
				"harvest",
				"grab",
				"read",
				"extra",
				"locate",
				"enumerate",
				"dump",
				"busca",
				"recopila",
				"lee",
				"copia",
				"cherche",
				"rassemble",
				"lis",
				"copie",
				"such",
				"sammle",
				"lies",
				"kopiere",
				"procure",
				"busque",
				"colete",
				"leia",
				"cerca",
				"raccogli",
				"leggi",
				"estrai",
			],
		],
	],
	// The ASCII words of lureHits' LURE_HINT.
	"install-lure": [[["pass", "pwd", "contrase", "senha", "http"]]],
	"output-manipulation": [
		[["regardless", "whatever", "even", "matter"]],
		[
			["pass", "green", "succeed"],
			["test", "assertion", "expected"],
		],
		[
			["fabricate", "make", "invent"],
			["result", "output", "number", "citation", "source", "reference", "benchmark", "log", "metric"],
		],
		[
			["hide", "suppress", "omit", "remove", "delete", "drop"],
			["error", "warning", "failure", "failing", "vulnerabilit", "findings", "security"],
		],
	],
};

// Which character triples the last scanned text holds, and which characters, each character folded to its low five
// bits (upper and lower case letters fold alike): the scan's number per entry, so nothing is cleared between texts,
// in a table small enough to stay in the processor's cache. A word with a triple (or, shorter than three, a
// character) missing is not in the text. Folding merges entries, so the test can let a family scan in vain, never
// skip one that could match.
// Pairs of characters sit after the single characters, so a word of two characters (`sh`, `/q`) is tested as one.
const SINGLE = 1 << 15;
const PAIR = SINGLE + 32;
const seen = new Uint16Array(PAIR + 1024);
let scan = 0;
const fold = (c: number) => c & 0x1f;

/** The entries a word cannot be in the text without: each of its triples, its pair, or its one character. */
function probes(word: string): number[] {
	const c = [...word].map((char) => fold(char.charCodeAt(0)));
	if (c.length === 1) return [SINGLE + (c[0] as number)];
	if (c.length === 2) return [PAIR + (((c[0] as number) << 5) | (c[1] as number))];
	return c.slice(2).map((code, i) => ((c[i] as number) << 10) | ((c[i + 1] as number) << 5) | code);
}

/** Needs compiled for {@link holds}: each group as its words in a row, a word as its number of entries, then them. */
export type CompiledNeeds = readonly (readonly Int32Array[])[];

/** Compiles a list of needs (words in lower case) for {@link holds}. */
export function compileNeeds(needs: readonly Need[]): CompiledNeeds {
	return needs.map((need) =>
		need.map((group) => Int32Array.from(group.flatMap((word) => [probes(word).length, ...probes(word)]))),
	);
}

const NEEDS = new Map(Object.entries(ANCHORS).map(([rule, needs]) => [rule, compileNeeds(needs)]));

/**
 * Reads which character triples `text` holds, for {@link mayMatch}: one pass over its characters. Returns false when
 * the text is not plain ASCII (then every family must scan it).
 */
export function scanAnchors(text: string): boolean {
	if (++scan === 0x10000) {
		seen.fill(0);
		scan = 1;
	}
	lastText = text;
	lastAscii = false;
	let a = 0;
	let b = 0;
	for (let i = 0; i < text.length; i++) {
		const code = text.charCodeAt(i);
		if (code > 0x7f) return false;
		const c = fold(code);
		seen[(a << 10) | (b << 5) | c] = scan;
		seen[PAIR + ((b << 5) | c)] = scan;
		seen[SINGLE + c] = scan;
		a = b;
		b = c;
	}
	lastAscii = true;
	return true;
}

/** {@link scanAnchors}, unless `text` was the last text scanned (its table is still there). */
export function scanOnce(text: string): boolean {
	return text === lastText ? lastAscii : scanAnchors(text);
}

/** {@link mayHold} from a pass already made over `text`; a text not scanned last may hold anything. */
export function scannedMayHold(text: string, needs: CompiledNeeds): boolean {
	return text === lastText ? mayHold(text, needs) : true;
}

/** Whether `text` was the last text scanned and is plain ASCII: rules about other characters can skip it. */
export function scannedAscii(text: string): boolean {
	return text === lastText && lastAscii;
}

/** Whether the table holds `text` (the last text scanned). */
export function wasScanned(text: string): boolean {
	return text === lastText;
}

// The text the table was last filled from, so that several rules asking about one unit scan it once.
let lastText: string | undefined;
let lastAscii = false;

/**
 * Whether `text` may hold the words of `needs` (at least one need with a word of each of its groups): false proves
 * it does not. The text is scanned unless it was the last one scanned; text that is not plain ASCII always may.
 */
export function mayHold(text: string, needs: CompiledNeeds): boolean {
	if (!scanOnce(text)) return true;
	for (const need of needs) if (need.every(present)) return true;
	return false;
}

/**
 * Whether the family of `rule` could match the text last given to {@link scanAnchors} (`scanned`: what it returned).
 * A family without anchors, or text that is not plain ASCII, always could.
 */
export function mayMatch(rule: string, scanned: boolean): boolean {
	const needs = NEEDS.get(rule);
	if (!scanned || needs === undefined) return true;
	for (const need of needs) if (need.every(present)) return true;
	return false;
}

/** Whether some word of a group may be in the scanned text: all of its entries are. */
function present(group: Int32Array): boolean {
	let k = 0;
	while (k < group.length) {
		const end = k + 1 + (group[k] as number);
		let i = k + 1;
		while (i < end && seen[group[i] as number] === scan) i++;
		if (i === end) return true;
		k = end;
	}
	return false;
}
