// Words the line-level code regexes cannot match without, so that a window of a long line (or any unit) is scanned
// by a costly alternation only when it holds one. One pass over the unit fills the table of prose-anchors.ts, and
// each regex then costs a few table reads instead of a search over every position (each such search cost 30-100 ms
// per 10 MB single line). Text with a character outside ASCII is always scanned by the regexes, as before.
//
// Every alternative of a regex must be covered by a need whose words it cannot match without: a missing word can
// only skip a search that finds nothing. Words are lower case (the table folds case); `\s` is never part of a word.
// A regex changed in lines.ts, flow.ts or chars.ts needs its words here.

import { type CompiledNeeds, compileNeeds, mayHold, type Need, wasScanned } from "./prose-anchors.ts";
import type { Unit } from "./text.ts";

const one = (...words: string[]): Need => [words];

/** The name of a guarded regex, as in its module. */
export type CodeAnchor =
	| "REMOTE_EXEC"
	| "REVERSE"
	| "DESTROY"
	| "DECODE"
	| "EXEC"
	| "WRITE_API"
	| "NET_CALL"
	| "CREDENTIAL_HINT"
	| "DOTENV"
	| "ENV_VALUE"
	| "SECRET_HINT"
	| "SECRET_NAME";

/** The needs of each guarded regex, by the name it has in its module. */
const CODE_ANCHORS: Readonly<Record<CodeAnchor, readonly Need[]>> = {
	// lines.ts REMOTE_EXEC: `exec(`/`eval(` of a fetch, `iex (iwr …)`, `.DownloadString(…) | iex`, `new Function(await
	// fetch(`, `-EncodedCommand`, ` -enc `.
	REMOTE_EXEC: [one("exec", "eval", "iex", "invoke-expression", ".downloadstring(", "function(", "-enc")],
	// lines.ts REVERSE: `/dev/tcp/…`, `mkfifo … nc`, `socket.socket(… dup2`, `pty.spawn("/bin/sh`.
	REVERSE: [one("/dev/", "mkfifo", "socket.socket(", "pty.spawn(")],
	// lines.ts DESTROY: `dd … of=/dev/sd`, `mkfs`, the fork bomb, `shutil.rmtree(`, `Remove-Item`, `format C:`, and
	// `rd /s /q C:\`.
	DESTROY: [one("of=/dev/", "mkfs", ":()", "shutil.rmtree(", "remove-item", "format"), [["/q"], [":\\"]]],
	// lines.ts DECODE.
	DECODE: [
		one(
			"base64",
			"b64decode",
			"atob(",
			"buffer.from(",
			"xxd",
			"fromhex",
			"unhexlify",
			"frombase64string",
			"codecs.decode(",
		),
	],
	// lines.ts EXEC: `| sh`, `sh -c`, `eval`, `exec(`, `execSync`, `Function(`, `python -c`, `iex`, `subprocess.`, ….
	EXEC: [
		one(
			"sh",
			"eval",
			"exec",
			"function(",
			"python",
			"iex",
			"invoke-expression",
			"subprocess.",
			"os.system",
			"child_process",
			"spawn(",
		),
	],
	// lines.ts WRITE_API.
	WRITE_API: [one("open(", "write_text", "writefile", "appendfile", "out-file", "add-content", "set-content")],
	// flow.ts NET_CALL; `http.request(` and `https.get(` need both words.
	NET_CALL: [
		one(
			"requests.",
			"httpx.",
			"urllib.request",
			"urlopen(",
			"fetch(",
			"axios",
			".connect(",
			"smtplib",
			"invoke-webrequest",
			"invoke-restmethod",
			"webclient",
			"socket.create_connection",
		),
		[["http"], [".request(", ".get("]],
	],
	// flow.ts CREDENTIAL_HINT: its own words.
	CREDENTIAL_HINT: [
		one(
			"ssh",
			"aws",
			"gnupg",
			"kube",
			"docker",
			"id_",
			"gcloud",
			"netrc",
			"npmrc",
			"pypirc",
			"credential",
			"login",
			"cookies",
			"keychain",
			"wallet",
			"leveldb",
			"electrum",
			"exodus",
			"chrome",
			"brave",
			"firefox",
			"mozilla",
			"security",
			"shadow",
			"password",
			"gh/hosts",
			"printenv",
			"process.env",
			"os.environ",
			"env:",
			"-name",
		),
	],
	// flow.ts DOTENV.
	DOTENV: [one(".env")],
	// flow.ts ENV_VALUE: a value taken from the environment, after a `:` or `=`.
	ENV_VALUE: [
		[
			["os.environ", "os.getenv", "process.env", "$"],
			[":", "="],
		],
	],
	// chars.ts SECRET_HINT: its own words (`gh[pousr]_` spelled out).
	SECRET_HINT: [
		one(
			"akia",
			"ghp_",
			"gho_",
			"ghu_",
			"ghs_",
			"ghr_",
			"github_pat_",
			"sk_live_",
			"aiza",
			"xox",
			"sk-",
			"glpat-",
			"npm_",
			"private key",
			"postgres",
			"mysql",
			"mongodb",
			"redis",
			"amqp",
			"mssql",
		),
	],
	// encoded-secrets.ts SECRET_NAME: a name a credential-named variable holds (`PASSWORD` and `PASSWD` share `passw`).
	SECRET_NAME: [
		one(
			"token",
			"secret",
			"passw",
			"credential",
			"session",
			"cookie",
			"service_account",
			"database_url",
			"db_url",
			"connection_string",
		),
		[["key"], ["api", "private", "access"]],
	],
};

const NAMES = Object.keys(CODE_ANCHORS) as CodeAnchor[];
const COMPILED = NAMES.map((name) => compileNeeds(CODE_ANCHORS[name]));
const BIT = new Map<string, number>(NAMES.map((name, i) => [name, 1 << i]));

// Which regexes each unit may match, one bit per name, from one pass over its text: the rules of one window ask
// before and after the other windows of its line are read, and the pass is the costly part.
const verdicts = new WeakMap<Unit, number>();

/** Below this length a unit goes straight to the regexes: a pass over its text would cost about as much. */
const SHORT = 512;

/**
 * False when the text of `unit` cannot match the regex `name` (it lacks every need's words); true when it may.
 * With `scan` false the answer comes only from a pass already made (the phrase rules make one over prose): a
 * unit not yet scanned may match.
 */
export function codeMay(unit: Unit, name: CodeAnchor, scan = true): boolean {
	const text = unit.text;
	if (text.length < SHORT) return true;
	let bits = verdicts.get(unit);
	if (bits === undefined) {
		if (!scan && !wasScanned(text)) return true;
		bits = 0;
		for (let i = 0; i < COMPILED.length; i++) if (mayHold(text, COMPILED[i] as CompiledNeeds)) bits |= 1 << i;
		verdicts.set(unit, bits);
	}
	return (bits & (BIT.get(name) as number)) !== 0;
}
