// A credential-named variable written into the body of a request (`curl -d "pw=$DB_PASSWORD" https://…`) to a host
// the name does not tie to a service. Sending a token in an Authorization header or as a login is how an API is
// used; putting it in the payload of a POST to an unrelated host is how it leaves. The audit cannot know every
// vendor's login form, so this is P1 ("ask"), and names of known services are judged by their hosts before this.

import { commandProgram, type ShellCommand } from "../shell/index.ts";
import { LOCAL } from "./chars.ts";

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

/** The span of the first credential-named reference in a request body sent to a non-local host, if any. */
export function bodySecret(
	commands: readonly ShellCommand[],
	secrets: ReadonlyMap<string, number>,
	hosts: readonly string[],
	known: (name: string) => boolean,
): { start: number; end: number } | undefined {
	if (!hosts.some((h) => h !== "" && !h.includes("$") && !LOCAL.test(h))) return undefined;
	for (const command of commands) {
		if (!SENDERS.has(commandProgram(command))) continue;
		for (const value of bodyValues(command.words))
			for (const [name, at] of secrets)
				if (!known(name) && value.includes(name)) return { start: at, end: at + name.length + 1 };
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
