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

/** Anchors of the rule ids of prose.ts's phrase families. */
export const ANCHORS: Readonly<Record<string, readonly Need[]>> = {
	"instruction-override": [
		// ignore/disregard/forget… previous instructions, ignore the user (es, fr, it, de forms share "ignor").
		[["ignor", "disregard", "forget", "override", "bypass", "skip", "abandon"]],
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
	"remote-instructions": [[["http"]]],
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
const SINGLE = 1 << 15;
const seen = new Uint16Array(SINGLE + 32);
let scan = 0;
const fold = (c: number) => c & 0x1f;

/** The entries a word cannot be in the text without: each of its triples, or, shorter than three, its characters. */
function probes(word: string): number[] {
	const c = [...word].map((char) => fold(char.charCodeAt(0)));
	if (c.length < 3) return c.map((code) => SINGLE + code);
	return c.slice(2).map((code, i) => ((c[i] as number) << 10) | ((c[i + 1] as number) << 5) | code);
}

// Each need as groups, each group as its words in a row: a word is its number of entries, then the entries.
const NEEDS = new Map(
	Object.entries(ANCHORS).map(([rule, needs]) => [
		rule,
		needs.map((need) =>
			need.map((group) => Int32Array.from(group.flatMap((word) => [probes(word).length, ...probes(word)]))),
		),
	]),
);

/**
 * Reads which character triples `text` holds, for {@link mayMatch}: one pass over its characters. Returns false when
 * the text is not plain ASCII (then every family must scan it).
 */
export function scanAnchors(text: string): boolean {
	if (++scan === 0x10000) {
		seen.fill(0);
		scan = 1;
	}
	let a = 0;
	let b = 0;
	for (let i = 0; i < text.length; i++) {
		const code = text.charCodeAt(i);
		if (code > 0x7f) return false;
		const c = fold(code);
		seen[(a << 10) | (b << 5) | c] = scan;
		seen[SINGLE + c] = scan;
		a = b;
		b = c;
	}
	return true;
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
