// Secrets put into requests: a credential-named variable (or one taken from such a variable) in a request to a host
// its service does not own, in a DNS name, or in a URL's host (P0); and in the body of a request to a host no service
// ties it to (`curl -d "pw=$DB_PASSWORD" https://…`, P1). A token in an Authorization header or a login is how an
// API is used; in the payload of a POST to an unrelated host it is how it leaves. The audit cannot know every
// vendor's login form, so the body case asks.

import { commandProgram, type ShellCommand } from "../shell/index.ts";
import { isSuspiciousHost, LOCAL, type Report, urlsIn } from "./chars.ts";
import { codeMay } from "./code-anchors.ts";
import { SECRET_NAME, SECRET_REF } from "./encoded-secrets.ts";
import type { Unit } from "./text.ts";

interface Secret {
	at: number;
	word: string;
}

const DNS = new Set(["dig", "nslookup", "host", "drill", "ping"]);
// Credential-name prefixes and the hosts of the service each belongs to.
const SERVICES: readonly [RegExp, RegExp][] = [
	[/^(GITHUB|GH)_/i, /(^|\.)github(usercontent)?\.com$|^ghcr\.io$/],
	[/^NPM_/i, /(^|\.)npmjs\.(org|com)$/],
	[/^OPENAI_/i, /(^|\.)openai\.com$/],
	[/^ANTHROPIC_/i, /(^|\.)anthropic\.com$/],
	[/^AWS_/i, /(^|\.)amazonaws\.com$/],
	[/^SLACK_/i, /(^|\.)slack\.com$/],
	[/^(HF|HUGGINGFACE)_/i, /(^|\.)huggingface\.co$/],
	[/^GITLAB_/i, /(^|\.)gitlab\.com$/],
	[/^(PYPI|TWINE)_/i, /(^|\.)pypi\.org$/],
	[/^STRIPE_/i, /(^|\.)stripe\.com$/],
	[/^LINEAR_/i, /(^|\.)linear\.app$/],
	[/^NOTION_/i, /(^|\.)notion\.(com|so)$/],
	[/^(GOOGLE|GEMINI)_/i, /(^|\.)(googleapis|google)\.com$/],
];

// A variable read through a command: `$(printenv NAME)`, `$(env | grep NAME)`, and `$(NAME)` (which runs no command
// by that name, but says which value the author meant to send).
const SUBSTITUTED_REF =
	/\$\(\s{0,3}(?:printenv\s{1,5}|env\s{0,3}\|\s{0,3}grep\s{1,5}(?:-\w{1,4}\s{1,5})?["']?\^?)?([A-Za-z_][A-Za-z0-9_]{1,60})/g;

/** A secret variable placed in a request to a foreign host, in a DNS name, in a URL's host, or in a request body. */
export function secretHits(
	unit: Unit,
	commands: readonly ShellCommand[],
	tainted: ReadonlyMap<string, string>,
	report: Report,
): void {
	const text = unit.text;
	// Each secret's name, where it is used, and the word it is used by (its own name, or a variable it was put in).
	const secrets = new Map<string, Secret>();
	if (codeMay(unit, "SECRET_NAME"))
		for (const pattern of [SECRET_REF, SUBSTITUTED_REF])
			for (const ref of text.matchAll(pattern)) {
				const name = ref.slice(1).find(Boolean) ?? "";
				if (SECRET_NAME.test(name)) secrets.set(name, { at: ref.index, word: name });
			}
	for (const [variable, name] of tainted) {
		const use = new RegExp(`\\b${variable}\\b`).exec(text);
		if (use && !text.includes(`${variable} =`)) secrets.set(name, { at: use.index, word: variable });
	}
	if (secrets.size === 0) return;
	const dns = commands.some((c) => DNS.has(commandProgram(c)) && c.words.some((w) => w.includes("$")));
	const hosts = urlsIn(text).map((u) => u.host);
	for (const [name, { at }] of secrets) {
		const inHost = hosts.some((h) => h.includes(name.toLowerCase()));
		const services = SERVICES.find(([prefix]) => prefix.test(name))?.[1];
		const foreign = services
			? hosts.some((h) => h !== "" && !h.includes("$") && !services.test(h))
			: hosts.some((h) => isSuspiciousHost(h));
		if (dns || inHost || foreign) {
			report({ rule: "secret-exfiltration", unit, start: at, end: at + name.length + 1, flow: true });
			return;
		}
	}
	const body = bodySecret(commands, secrets, hosts);
	if (body) report({ rule: "secret-exfiltration", unit, ...body, flow: true, severity: "P1" });
}

const SENDERS = new Set(["curl", "wget"]);
// Options whose value is the request body (curl, wget), written apart (`-d VALUE`) or joined (`--data=VALUE`).
const BODY_OPTIONS = new Set([
	"-d",
	"--data",
	"--data-raw",
	"--data-binary",
	"--data-ascii",
	"--data-urlencode",
	"-F",
	"--form",
	"--form-string",
	"--json",
	"--post-data",
	"--body-data",
]);

/** The span of the first credential-named reference (of no known service) in a request body sent off this machine. */
function bodySecret(
	commands: readonly ShellCommand[],
	secrets: ReadonlyMap<string, Secret>,
	hosts: readonly string[],
): { start: number; end: number } | undefined {
	if (!hosts.some((h) => h !== "" && !h.includes("$") && !LOCAL.test(h))) return undefined;
	for (const command of commands) {
		if (!SENDERS.has(commandProgram(command))) continue;
		for (const value of bodyValues(command.words))
			for (const [name, { at, word }] of secrets)
				if (!SERVICES.some(([prefix]) => prefix.test(name)) && value.includes(word))
					return { start: at, end: at + word.length + 1 };
	}
	return undefined;
}

function* bodyValues(words: readonly string[]): Generator<string> {
	for (let i = 0; i < words.length; i++) {
		const word = words[i] ?? "";
		if (BODY_OPTIONS.has(word)) yield words[i + 1] ?? "";
		else if (/^-[dF]./.test(word)) yield word.slice(2);
		else if (word.startsWith("--")) {
			const eq = word.indexOf("=");
			if (eq > 0 && BODY_OPTIONS.has(word.slice(0, eq))) yield word.slice(eq + 1);
		}
	}
}
