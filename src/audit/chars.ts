// Rules that look at characters and tokens in any context: hidden Unicode, URLs, secrets and encoded blobs. All of
// them are single passes over a bounded unit (no backtracking).

import { codeMay } from "./code-anchors.ts";
import { scannedAscii } from "./prose-anchors.ts";
import type { AuditSeverity } from "./rules.ts";
import type { Unit } from "./text.ts";

/** A rule match inside one unit: the rule, the matched span, and optionally a lower severity than the rule's. */
export interface Hit {
	rule: string;
	unit: Unit;
	start: number;
	end: number;
	severity?: AuditSeverity;
	/** Replaces the matched text as evidence (decoded tag text, a flow summary). */
	evidence?: string;
	/** The match sits in a chain (source and sink, download and run) found in one flow: severity is not lowered. */
	flow?: boolean;
}

export type Report = (hit: Hit) => void;

const ZERO_WIDTH = new Set([0x200b, 0x200c, 0x200d, 0x2060, 0x00ad, 0xfeff, 0x180e]);
const isBidi = (c: number) => (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
const isAsciiWord = (c: number | undefined) =>
	c !== undefined && ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a));

// Every character the rule looks at; \udb40 leads the surrogate pairs of tags and variation selectors.
const INVISIBLE = /[\u00ad\u180e\u200b-\u200d\u202a-\u202e\u2060\u2066-\u2069\ufeff\udb40]/;

/** Tag characters (P0, decoded), bidi controls, zero-width marks inside ASCII words or in runs, variation selectors. */
export function unicodeHits(unit: Unit, report: Report): void {
	const text = unit.text;
	if (scannedAscii(text) || !INVISIBLE.test(text)) return;
	let invisible = 0;
	let firstInvisible = -1;
	for (let i = 0; i < text.length; i++) {
		const c = text.charCodeAt(i);
		if (c < 0x00ad) continue;
		const code = text.codePointAt(i) ?? c;
		if (code >= 0xe0000 && code <= 0xe007f) {
			let end = i;
			let decoded = "";
			while (end < text.length) {
				const t = text.codePointAt(end) ?? 0;
				if (t < 0xe0000 || t > 0xe007f) break;
				if (decoded.length < 200) decoded += String.fromCodePoint(t - 0xe0000);
				end += 2;
			}
			report({ rule: "unicode-tag-chars", unit, start: i, end, evidence: `[hidden: ${decoded}]` });
			i = end - 1;
			continue;
		}
		if (isBidi(code)) {
			report({ rule: "bidi-override", unit, start: i, end: i + 1, severity: unit.context === "prose" ? "P1" : "P0" });
			continue;
		}
		if (code >= 0xe0100 && code <= 0xe01ef) {
			report({ rule: "invisible-characters", unit, start: i, end: i + 2 });
			i++;
			continue;
		}
		if (!ZERO_WIDTH.has(code) || (code === 0xfeff && i === 0 && unit.line === 1)) continue;
		// A joiner between emoji or in Indic and Persian text is normal; inside an ASCII word it splits a keyword.
		if (isAsciiWord(text.charCodeAt(i - 1)) || isAsciiWord(text.charCodeAt(i + 1))) {
			report({ rule: "invisible-characters", unit, start: i, end: i + 1 });
			continue;
		}
		invisible++;
		if (firstInvisible === -1) firstInvisible = i;
	}
	if (invisible >= 4) report({ rule: "invisible-characters", unit, start: firstInvisible, end: firstInvisible + 1 });
}

// Characters that end a URL, by code: a table lookup per character instead of a one-character string per lookup.
const URL_END = new Uint8Array(128);
for (const c of " \t\"'`<>)]}|\\^{") URL_END[c.charCodeAt(0)] = 1;
const isUrlEnd = (c: number) => c < 128 && URL_END[c] === 1;
/** Punctuation a sentence puts after a URL; up to four are dropped from its end. */
const isTrailing = (c: number) => c === 0x2e || c === 0x2c || c === 0x3b || c === 0x3a || c === 0x21 || c === 0x3f;

type FoundUrl = { start: number; end: number; url: string; host: string; plain: boolean };
// Several rules ask for the URLs of one unit in turn: the last answer is reused.
let lastUrls: { text: string; found: FoundUrl[] } | undefined;

/** Each http(s) URL in the text with its span and lower-cased host. The answer is shared: do not change it. */
export function urlsIn(text: string): readonly FoundUrl[] {
	if (lastUrls?.text === text) return lastUrls.found;
	const found: FoundUrl[] = [];
	lastUrls = { text, found };
	let at = text.indexOf("http", 0);
	while (at !== -1 && found.length < 1000) {
		const plain = text.startsWith("http://", at);
		if ((plain || text.startsWith("https://", at)) && !isAsciiWord(text.charCodeAt(at - 1))) {
			let end = at + (plain ? 7 : 8);
			while (end < text.length && end - at < 2048 && !isUrlEnd(text.charCodeAt(end))) end++;
			let stop = end;
			while (stop > at && end - stop < 4 && isTrailing(text.charCodeAt(stop - 1))) stop--;
			const url = text.slice(at, stop);
			found.push({ start: at, end: stop, url, host: hostOf(url), plain });
			at = text.indexOf("http", end);
		} else at = text.indexOf("http", at + 4);
	}
	return found;
}

/** The lower-cased host of a URL (no user info, no port). */
export function hostOf(url: string): string {
	const from = url.indexOf("//") + 2;
	let end = from;
	while (end < url.length && end - from < 300) {
		const c = url.charCodeAt(end);
		if (c === 0x2f || c === 0x3f || c === 0x23) break;
		end++;
	}
	const authority = url.slice(from, end);
	const host = authority.slice(authority.lastIndexOf("@") + 1);
	const colon = host.indexOf(":");
	return (
		host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : colon === -1 ? host : host.slice(0, colon)
	).toLowerCase();
}

const SHORTENERS = new Set(["bit.ly", "tinyurl.com", "t.co", "goo.gl", "is.gd", "ow.ly", "cutt.ly", "rb.gy", "t.ly"]);
const DROP_HOSTS = new Set([
	"pastebin.com",
	"paste.ee",
	"hastebin.com",
	"ghostbin.com",
	"rentry.co",
	"transfer.sh",
	"webhook.site",
	"requestbin.com",
	"pipedream.net",
	"interact.sh",
	"serveo.net",
	"localhost.run",
	"anonfiles.com",
	"gofile.io",
	"file.io",
	"temp.sh",
	"0x0.st",
]);
const DROP_SUFFIXES = [
	".ngrok.io",
	".ngrok-free.app",
	".ngrok.app",
	".trycloudflare.com",
	".loca.lt",
	".pipedream.net",
	".requestcatcher.com",
	".burpcollaborator.net",
	".oast.fun",
	".oast.me",
	".oastify.com",
	".interact.sh",
	".webhook.site",
	".m.pipedream.net",
];

/** True for hosts that hide or catch data: shorteners, paste and drop sites, tunnels, request catchers, public IPs. */
export function isSuspiciousHost(host: string): boolean {
	// A text names the same host again and again (a long line, one page of docs): the last answer is reused.
	if (host === lastHost.host) return lastHost.suspicious;
	const suspicious = suspiciousHost(host);
	lastHost = { host, suspicious };
	return suspicious;
}

let lastHost = { host: "", suspicious: suspiciousHost("") };

function suspiciousHost(host: string): boolean {
	if (SHORTENERS.has(host) || DROP_HOSTS.has(host)) return true;
	if (DROP_SUFFIXES.some((suffix) => host.endsWith(suffix))) return true;
	return isPublicIp(host);
}

function isPublicIp(host: string): boolean {
	const first = host.charCodeAt(0);
	if (!(first >= 0x30 && first <= 0x39)) return false;
	const parts = host.split(".");
	if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p))) return false;
	const [a, b] = parts.map(Number) as [number, number];
	if (a === 10 || a === 127 || a === 0 || (a === 192 && b === 168) || (a === 172 && b >= 16 && b <= 31)) return false;
	return !(a === 169 && b === 254);
}

// Namespaces, schemas and licences name a document type; nothing is fetched from them.
const IDENTIFIER_HOSTS = [
	"schemas.openxmlformats.org",
	"schemas.microsoft.com",
	"www.w3.org",
	"w3.org",
	"purl.org",
	"www.apache.org",
	"apache.org",
	"opensource.org",
	"creativecommons.org",
	"json-schema.org",
	"ns.adobe.com",
	"xml.org",
	"www.xml.org",
	"relaxng.org",
	"www.gnu.org",
	"gnu.org",
	"schemas.xmlsoap.org",
	"docs.oasis-open.org",
	"www.opengis.net",
	"ns.microsoft.com",
	"mozilla.org",
	"www.mozilla.org",
];
export const LOCAL: RegExp =
	/^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|0\.0\.0\.0|\[::1\]|[\w.-]{0,200}\.(local|test|example|invalid|localhost)|example\.(com|org|net)|[\w.-]{0,200}\.example\.(com|org|net))$/;

/** Suspicious hosts (P1) and plain-http URLs that are not identifiers or local (P2). */
export function urlHits(unit: Unit, report: Report): void {
	if (unit.kind === "licence") return;
	for (const { start, end, host, plain } of urlsIn(unit.text)) {
		if (isSuspiciousHost(host)) report({ rule: "suspicious-url", unit, start, end });
		else if (plain && !LOCAL.test(host) && !IDENTIFIER_HOSTS.includes(host) && !isNamespace(unit.text, start))
			report({ rule: "plain-http", unit, start, end });
	}
}

function isNamespace(text: string, at: number): boolean {
	const before = text.slice(Math.max(0, at - 24), at);
	return /xmlns(:[\w-]{1,20})?\s{0,2}=\s{0,2}["']?$|targetNamespace=["']?$|schemaLocation=["']?$/.test(before);
}

// Key formats whose shape is their own (no context needed). AWS's documented example keys end in EXAMPLE.
const SECRET_TOKENS =
	/\b(AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{36,80}|github_pat_[A-Za-z0-9_]{40,120}|sk_live_[0-9a-zA-Z]{24,80}|AIza[0-9A-Za-z_-]{35}|xox[baprs]-[0-9A-Za-z-]{20,80}|sk-ant-[a-z0-9]{2,8}-[A-Za-z0-9_-]{40,120}|sk-proj-[A-Za-z0-9_-]{40,200}|glpat-[A-Za-z0-9_-]{20}|npm_[A-Za-z0-9]{36})\b|-----BEGIN (RSA |EC |OPENSSH |DSA |ENCRYPTED )?PRIVATE KEY-----/g;
const CONNECTION = /\b(postgres(ql)?|mysql|mongodb(\+srv)?|redis|amqp|mssql):\/\/([^\s:/@]{1,100}):([^\s@/]{1,100})@/g;
const PLACEHOLDER =
	/^(\$|%|<|\{|\[|\*|x+$|\.\.\.|password$|pass$|passwd$|pwd$|secret$|changeme$|your|my_?pass|example|test|dummy|placeholder|redacted)/i;

const SECRET_HINT =
	/AKIA|gh[pousr]_|github_pat_|sk_live_|AIza|xox|sk-|glpat-|npm_|PRIVATE KEY|postgres|mysql|mongodb|redis|amqp|mssql/;

/** Documented fake keys: AWS's `…EXAMPLE`, `sk-proj-xxxxxxxx…`, `ghp_your_token…`, runs of one character. */
function isPlaceholder(token: string): boolean {
	if (token.startsWith("-----")) return false;
	const tail = token.slice(token.search(/[_-]/) + 1);
	return /EXAMPLE$|x{6}|X{6}|your|example|placeholder|1234567890|abcdef(ghij)?$|(.)\2{7}/i.test(tail);
}

/** Key formats and connection strings with a literal password (not `$PASSWORD`, `<password>`, `{pw}`). */
export function secretHits(unit: Unit, report: Report): void {
	const text = unit.text;
	if (!codeMay(unit, "SECRET_HINT", false) || !SECRET_HINT.test(text)) return;
	for (const match of text.matchAll(SECRET_TOKENS)) {
		if (isPlaceholder(match[0])) continue;
		report({ rule: "hardcoded-secret", unit, start: match.index, end: match.index + match[0].length });
	}
	for (const match of text.matchAll(CONNECTION)) {
		const [user, password] = [match[4] ?? "", match[5] ?? ""];
		if (PLACEHOLDER.test(password) || PLACEHOLDER.test(user) || password.includes("$")) continue;
		report({ rule: "hardcoded-secret", unit, start: match.index, end: match.index + match[0].length });
	}
}

const BASE64 = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") BASE64[c.charCodeAt(0)] = 1;
const MIN_BLOB = 200;
// Which characters a run has seen: one shared table, a fresh run number per run instead of clearing it.
const seen = new Float64Array(128);
let blobRun = 0;

/**
 * Runs of at least 200 base64 characters (four or more distinct) or hex digits. Such a run covers one of every 200th
 * position, so only those are looked at; a run is measured from one of them in both directions (linear overall,
 * and prose and code, whose runs are words, cost one look per 200 characters).
 */
export function blobHits(unit: Unit, report: Report): void {
	const text = unit.text;
	const length = text.length;
	if (length < MIN_BLOB) return;
	let probe = MIN_BLOB - 1;
	while (probe < length) {
		if (!isBase64(text.charCodeAt(probe))) {
			probe += MIN_BLOB;
			continue;
		}
		let start = probe;
		while (start > 0 && isBase64(text.charCodeAt(start - 1))) start--;
		let end = probe + 1;
		while (end < length && isBase64(text.charCodeAt(end))) end++;
		if (end - start >= MIN_BLOB && mixed(text, start, end) && !isDataUri(text, start))
			report({ rule: "encoded-blob", unit, start, end });
		// The next run starts after this one's end, past a character that is not base64.
		probe = Math.max(end + MIN_BLOB, probe + MIN_BLOB);
	}
}

function isBase64(c: number): boolean {
	return c < 128 && BASE64[c] === 1;
}

/** A real blob mixes characters: a run of one repeated letter is not one, and hex needs digits and letters. */
function mixed(text: string, start: number, end: number): boolean {
	const run = ++blobRun;
	let hexOnly = true;
	let digits = 0;
	let distinct = 0;
	for (let i = start; i < end; i++) {
		const c = text.charCodeAt(i);
		if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46))) hexOnly = false;
		if (c >= 0x30 && c <= 0x39) digits++;
		if (seen[c] !== run) {
			seen[c] = run;
			distinct++;
		}
	}
	return hexOnly ? digits > 0 && digits < end - start : distinct >= 4;
}

function isDataUri(text: string, at: number): boolean {
	const before = text.slice(Math.max(0, at - 60), at);
	return /data:(image|font|application\/(font|x-font)[\w-]{0,20}|audio|video)\/?[\w.+-]{0,40};base64,$/.test(before);
}
