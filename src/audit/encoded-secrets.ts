// Secrets taken in code: a credential-named variable passed through an encoder (base64, hex), the classic way to
// carry a key out inside a request body, a DNS label or a log line. With a network call in the same flow it is P0;
// an encoded secret nobody sends is P1 in a script. Basic-auth headers encode a token on purpose and are left alone.

import { commandProgram, type ShellCommand } from "../shell/index.ts";
import { codeMay } from "./code-anchors.ts";
import type { Unit } from "./text.ts";

/** A variable reference in shell, Python, Node or PowerShell; the name is in one of the groups. */
export const SECRET_REF: RegExp =
	/\$\{?([A-Za-z_][A-Za-z0-9_]{1,60})\}?|os\.environ\[["']([A-Za-z0-9_]{1,60})["']\]|os\.(?:environ\.get|getenv)\(\s{0,3}["']([A-Za-z0-9_]{1,60})["']|process\.env\.([A-Za-z0-9_]{1,60})|process\.env\[["']([A-Za-z0-9_]{1,60})["']\]|\$env:([A-Za-z0-9_]{1,60})/g;
/** Names that hold credentials (`AWS_SECRET_ACCESS_KEY`, `GITHUB_TOKEN`, a `DATABASE_URL` with its password). */
export const SECRET_NAME: RegExp =
	/TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY|CREDENTIAL|SESSION|COOKIE|SERVICE_ACCOUNT|DATABASE_URL|DB_URL|CONNECTION_STRING/i;

const ENCODE =
	/\bbase64(?!\s{1,5}(-d|--decode|-D)\b)\b|\b(urlsafe_)?b64encode\b|\bbtoa\(|toString\(\s{0,3}["'](base64|hex)["']\s{0,3}\)|\bxxd\b(?!\s{1,3}-r)|\.hex\(\)|\bhexlify\b|ToBase64String/;
// A word every ENCODE form holds (it is case-sensitive): substring searches first, since most units encode nothing.
const ENCODE_WORDS = ["base64", "b64encode", "btoa(", "toString(", "xxd", ".hex()", "hexlify", "ToBase64String"];
const BASIC_AUTH = /\bBasic\b|Authorization|HTTPBasicAuth|\bauth\s{0,3}=|kubectl|secretKeyRef/i;
const ENCODERS = new Set(["base64", "xxd", "od", "hexdump", "openssl", "gzip", "basenc"]);
const SENDERS = new Set(["curl", "wget", "nc", "ncat", "netcat", "socat", "dig", "nslookup", "host", "drill", "ping"]);

/** An encoded secret found in a flow: where, and whether it is already known to leave (an encoder piped to a send). */
export interface EncodedSecret {
	unit: Unit;
	start: number;
	end: number;
	/** The secret is credential-named (or taken from one); otherwise a plain variable piped through an encoder out. */
	named: boolean;
	sent: boolean;
}

/**
 * The encoded secrets of one unit: a credential-named (or tainted) variable on a line that encodes, and, in shell,
 * `echo "$VAR" | base64 | curl …` for any variable.
 */
export function encodedSecrets(
	unit: Unit,
	commands: readonly ShellCommand[],
	tainted: ReadonlyMap<string, string>,
): EncodedSecret[] {
	const text = unit.text;
	if (!ENCODE_WORDS.some((word) => text.includes(word)) || !ENCODE.test(text) || BASIC_AUTH.test(text)) return [];
	const found: EncodedSecret[] = [];
	const piped = pipedOut(commands);
	// The references are read only when the text holds a credential's word (code-anchors.ts).
	for (const ref of codeMay(unit, "SECRET_NAME") ? text.matchAll(SECRET_REF) : []) {
		const name = ref.slice(1).find(Boolean) ?? "";
		if (SECRET_NAME.test(name)) {
			found.push({ unit, start: ref.index, end: ref.index + ref[0].length, named: true, sent: piped !== undefined });
			return found;
		}
	}
	for (const [variable] of tainted) {
		const use = new RegExp(`\\b${variable}\\b`).exec(text);
		if (use) return [{ unit, start: use.index, end: use.index + variable.length, named: true, sent: false }];
	}
	if (piped) found.push({ unit, start: piped.start, end: piped.start + 1, named: false, sent: true });
	return found;
}

/** `echo "$X" | base64 | curl …`: a variable echoed into an encoder whose output a network command reads. */
function pipedOut(commands: readonly ShellCommand[]): ShellCommand | undefined {
	for (let i = 0; i + 2 < commands.length; i++) {
		const source = commands[i] as ShellCommand;
		const program = commandProgram(source);
		if ((program !== "echo" && program !== "printf") || source.next !== "|") continue;
		if (!source.words.some((w) => /\$\{?[A-Za-z_]/.test(w))) continue;
		let j = i + 1;
		let encoded = false;
		while (j < commands.length) {
			const step = commands[j] as ShellCommand;
			const name = commandProgram(step);
			if (ENCODERS.has(name)) encoded = true;
			else if (SENDERS.has(name)) return encoded ? source : undefined;
			if (step.next !== "|") break;
			j++;
		}
	}
	return undefined;
}
