// Rules on one tokenized shell command: wide deletes and permissions, container mounts, persistence writes,
// privileged changes, package installs (custom sources, look-alike names), reverse shells and safety switches.

import { commandProgram, commandProgramIndex, type ShellCommand } from "../shell/index.ts";
import type { Report } from "./chars.ts";
import { isTyposquat } from "./packages.ts";
import type { Unit } from "./text.ts";

/** The span of a command in the unit (from its first word, at most 200 characters), for evidence. */
export function spanOf(unit: Unit, command: ShellCommand): { start: number; end: number } {
	const text = unit.text;
	const limit = Math.min(text.length, command.start + 200);
	let end = command.start;
	while (end < limit && text[end] !== "\n") end++;
	let start = command.start;
	while (start < end && (text[start] === " " || text[start] === "\t")) start++;
	return { start, end: Math.max(end, start + 1) };
}

const SYSTEM_DIRS =
	"bin|boot|dev|etc|home|lib|lib64|opt|root|sbin|srv|sys|usr|var|Users|System|Library|Applications|Volumes|mnt|media|private";
const WIDE_TARGET = new RegExp(
	`^(\\/|\\/\\*|\\/\\.\\*?|~|~\\/|~\\/\\*|~\\/\\.\\*|\\$HOME|\\$\\{HOME\\}|\\$HOME\\/\\*?|\\$\\{HOME\\}\\/\\*?|\\*|\\.\\/?\\*|\\.|\\.\\/|\\.\\.|\\.\\.\\/|\\.\\.\\/\\*|\\.\\.\\/\\.\\.\\/?\\*?|\\/(${SYSTEM_DIRS})\\/?\\*?|[A-Za-z]:\\\\?\\*?|\\$env:USERPROFILE\\\\?|%USERPROFILE%\\\\?)$`,
);

const SCRATCH = /^(\/tmp|\/var\/tmp|\/dev\/shm|\$\{?TMPDIR\b|\$\{?TMP\b|\$\{?TEMP\b|%TEMP%)([/\\]|$)/;

/** An absolute or home path that is not scratch space: deleting it reaches beyond the working folder. */
export function isOutsideWork(word: string): boolean {
	const w = word.trim();
	if (SCRATCH.test(w) || w === "/dev/null") return false;
	return /^(\/[\w.]|~\/[\w.]|\$HOME\/|\$\{HOME\}\/|[A-Za-z]:\\)/.test(w);
}

/** True for a path whose deletion or opening up hurts the whole system, a home folder or the whole project. */
export function isWideTarget(word: string): boolean {
	return WIDE_TARGET.test(word.trim());
}

/** A word starting with `--` (a loop: this runs for every command of a long line). */
function hasLongOption(words: readonly string[]): boolean {
	for (let i = 0; i < words.length; i++) {
		const word = words[i] as string;
		if (word.charCodeAt(0) === 45 && word.charCodeAt(1) === 45) return true;
	}
	return false;
}

const hasFlag = (args: readonly string[], short: string, long: string) =>
	args.some((a) => a === long || (a.startsWith("-") && !a.startsWith("--") && a.slice(1).includes(short)));

/** The programs the command rules look at; any other command matters only for its redirections and long options. */
const RULED = new Set(
	(
		"rm chmod chown docker podman nerdctl nc ncat netcat socat crontab systemctl launchctl git iptables ip6tables ufw " +
		"firewall-cmd nft netsh apt apt-get yum dnf pacman apk zypper unset su claude"
	).split(" "),
);

/** Runs every command rule on one command of a code unit. */
export function commandHits(unit: Unit, command: ShellCommand, report: Report): void {
	const words = command.words;
	const program = commandProgram(command);
	// Most commands of a long line are none of these: skip them before anything is allocated.
	if (
		!ANY_RULED.has(program) &&
		command.redirects.length === 0 &&
		words[0] !== "sudo" &&
		words[0] !== "doas" &&
		!hasLongOption(words)
	)
		return;
	const at = commandProgramIndex(command);
	const args = words.slice(at + 1);
	const hit = (rule: string, severity?: "P0" | "P1" | "P2"): void =>
		report({ rule, unit, ...spanOf(unit, command), severity });
	// sudo asks the user for a password; it is worth knowing, not a reason to block on its own.
	// In a script the agent runs it unattended: it needs the user's approval (P1).
	if (words[0] === "sudo" || words[0] === "doas" || program === "su")
		hit("system-changes", unit.context === "script" ? "P1" : "P2");
	switch (program) {
		case "rm":
			if (hasFlag(args, "r", "--recursive") || hasFlag(args, "R", "--recursive")) {
				if (args.some((a) => !a.startsWith("-") && isWideTarget(a)) || args.includes("--no-preserve-root"))
					hit("destructive-command");
				else if (args.some((a) => !a.startsWith("-") && isOutsideWork(a))) hit("destructive-command", "P1");
			}
			break;
		case "chmod":
		case "chown":
			permissionHits(program, args, hit);
			break;
		case "docker":
		case "podman":
		case "nerdctl":
			containerHits(args, hit);
			break;
		case "nc":
		case "ncat":
		case "netcat":
			if (args.some((a) => /^-[a-zA-Z]{0,6}[ec]$/.test(a))) hit("reverse-shell");
			break;
		case "socat":
			if (args.some((a) => /^(exec|system):/i.test(a)) && args.some((a) => /^(tcp|udp|openssl)/i.test(a)))
				hit("reverse-shell");
			break;
		case "crontab":
			// `crontab FILE` or `crontab -` installs a table; -l lists, -r removes, -e is the user's own editor.
			if (args.length > 0 && !args.some((a) => a === "-l" || a === "-r" || a === "-e")) hit("persistence");
			break;
		case "systemctl":
			if (args.includes("enable")) hit("persistence", "P1");
			break;
		case "launchctl":
			if (args.includes("load") || args.includes("bootstrap")) hit("persistence", "P1");
			break;
		case "git":
			if (args.includes("config") && args.some((a) => a.toLowerCase() === "core.hookspath") && args.length >= 3)
				hit("persistence", args.includes("--global") || args.includes("--system") ? "P0" : "P1");
			break;
		case "iptables":
		case "ip6tables":
		case "ufw":
		case "firewall-cmd":
		case "nft":
			hit("system-changes");
			break;
		case "netsh":
			if (args.some((a) => /firewall/i.test(a))) hit("system-changes");
			break;
		case "apt":
		case "apt-get":
		case "yum":
		case "dnf":
		case "pacman":
		case "apk":
		case "zypper":
			if (args.some((a) => a === "install" || a === "add" || a === "-S")) hit("system-changes", "P2");
			break;
		case "unset":
			if (args.some((a) => /GUARD|SAFE|SANDBOX|APPROV/i.test(a))) hit("permission-bypass");
			break;
	}
	if (PACKAGE_PROGRAMS.has(program)) installHits(program, args, hit);
	if (command.redirects.length > 0 || WRITERS.has(program)) persistenceWrites(program, args, command, hit);
	if (
		words.some((w) => w.startsWith("--") && (BYPASS_FLAGS.has(w) || /^--permission-mode=?bypassPermissions$/i.test(w)))
	)
		hit("permission-bypass");
	if (program === "claude" && args.includes("--permission-mode") && args.includes("bypassPermissions"))
		hit("permission-bypass");
}

const PACKAGE_PROGRAMS = new Set([
	"pip",
	"pip3",
	"python",
	"python3",
	"uv",
	"pipx",
	"poetry",
	"npm",
	"pnpm",
	"yarn",
	"bun",
	"npx",
	"gem",
	"cargo",
]);
const WRITERS = new Set(["tee", "cp", "mv", "ln", "install", "rsync", "scp", "sed"]);
/** Every program some rule above looks at: one lookup decides that most commands of a long line need none. */
const ANY_RULED = new Set([...RULED, ...PACKAGE_PROGRAMS, ...WRITERS]);

const BYPASS_FLAGS = new Set([
	"--dangerously-skip-permissions",
	"--yolo",
	"--dangerously-bypass-approvals-and-sandbox",
	"--allow-dangerously-skip-permissions",
]);

function permissionHits(program: string, args: readonly string[], hit: (rule: string, severity?: "P1") => void): void {
	const operands = args.filter((a) => !a.startsWith("-"));
	const mode = program === "chmod" ? (operands[0] ?? "") : "";
	const targets = operands.slice(1);
	const recursive = hasFlag(args, "R", "--recursive");
	const wide = targets.some((t) => isWideTarget(t));
	if (program === "chmod" && /^[0-7]?[2367][0-7][2367]$|^[0-7]?[0-7]{2}7$|(^|,)(a|o|ugo)\+[rwx]{0,2}w/.test(mode)) {
		if (wide || (recursive && targets.some((t) => t.startsWith("/") || t.startsWith("~") || t.startsWith("$HOME"))))
			hit("wide-permissions");
		else if (targets.some((t) => isOutsideWork(t))) hit("wide-permissions", "P1");
	} else if (program === "chmod" && /^[0-7]?[4-7][0-7]{3}$|\+s|u\+s|g\+s/.test(mode)) hit("system-changes");
	else if (program === "chown" && recursive && wide) hit("wide-permissions");
}

function containerHits(args: readonly string[], hit: (rule: string, severity?: "P0" | "P1") => void): void {
	if (!args.includes("run") && !args.includes("create")) return;
	for (const [i, arg] of args.entries()) {
		const value = arg === "-v" || arg === "--volume" || arg === "--mount" ? (args[i + 1] ?? "") : arg;
		const source = value.replace(/^(--volume=|--mount=|-v)/, "").replace(/^type=bind,\s*(source|src)=/, "");
		const severity =
			/^\/:/.test(source) || /^(source|src)=\/(,|$)/.test(source)
				? "P0"
				: source.includes("docker.sock") || arg === "--privileged" || arg === "--pid=host"
					? "P1"
					: undefined;
		if (severity) {
			hit("host-exposure", severity);
			return;
		}
	}
}

/** Files whose change makes something run later, or changes what the agent is allowed to do. */
const PERSIST_P0 =
	/(^|\/)\.(bashrc|bash_profile|bash_login|profile|zshrc|zprofile|zshenv|zlogin|cshrc|tcshrc|kshrc)$|^\/etc\/(profile|bash\.bashrc|zsh\/?zshrc|environment|rc\.local|ld\.so\.preload|sudoers)|^\/etc\/(profile\.d|sudoers\.d|cron[\w.]{0,10}|systemd|init\.d)\/|\.config\/fish\/config\.fish$|\/var\/spool\/cron|\.config\/(systemd|autostart)\/|Library\/Launch(Agents|Daemons)\/|\.git\/hooks\/|(^|\/)authorized_keys$|\.ssh\/(config|rc|environment)$|\.claude\/(settings[\w.-]{0,20}\.json|hooks\/)|\.codex\/config\.toml$|\.gemini\/settings\.json$|\.cursor\/(mcp\.json|hooks)|(^|\/)\.mcp\.json$/;
const PERSIST_P1 =
	/(^|\/)(CLAUDE|AGENTS|MEMORY|SOUL|GEMINI)\.md$|\.cursorrules$|\.cursor\/rules\/|\.github\/copilot-instructions\.md$|\.claude\/(commands|agents|skills)\//;

/** The severity of writing to `path`, or undefined when it is an ordinary file. */
export function persistenceTarget(path: string): "P0" | "P1" | undefined {
	const p = path.trim();
	if (PERSIST_P0.test(p)) return "P0";
	if (PERSIST_P1.test(p)) return "P1";
	return undefined;
}

function persistenceWrites(
	program: string,
	args: readonly string[],
	command: ShellCommand,
	hit: (rule: string, severity?: "P0" | "P1") => void,
): void {
	const targets: string[] = command.redirects.filter((r) => r.op.includes(">")).map((r) => r.target);
	const operands = args.filter((a) => !a.startsWith("-"));
	if (program === "tee") targets.push(...operands);
	if (["cp", "mv", "ln", "install", "rsync", "scp"].includes(program) && operands.length >= 2)
		targets.push(operands[operands.length - 1] as string);
	if (program === "sed" && hasFlag(args, "i", "--in-place")) targets.push(...operands.slice(1));
	for (const target of targets) {
		const severity = persistenceTarget(target);
		if (severity) {
			hit("persistence", severity === "P0" && addsToolPath(program, args, target) ? "P1" : severity);
			return;
		}
	}
	if (targets.some((t) => isSystemFile(t))) hit("system-changes", "P1");
}

// A shell start-up file, and a line that only puts a tool's own bin folder in home (or Go's, Homebrew's) in front of
// PATH: every installer's manual asks for it. Anything else in the line, or another folder, is a takeover of every
// later shell (PATH=/tmp/x:$PATH shadows `sudo` and `git`), and stays P0.
const SHELL_RC = /(^|\/)\.(bashrc|bash_profile|profile|zshrc|zprofile|zshenv)$/;
const TOOL_BIN =
	/^((\$HOME|\$\{HOME\}|~)\/(\.(cargo|local|npm-global|bun|deno|pyenv|rbenv|volta|poetry|yarn|krew|fly|dotnet\/tools)\/bin|\.dotnet\/tools|go\/bin)|\/usr\/local\/go\/bin|\/opt\/homebrew\/bin)$/;

const PATH_REF = /^\$(PATH|\{PATH\})$/;

function addsToolPath(program: string, args: readonly string[], target: string): boolean {
	if ((program !== "echo" && program !== "printf") || !SHELL_RC.test(target.trim())) return false;
	const line = args
		.filter((a) => !a.startsWith("-"))
		.join(" ")
		.replace(/^["']|["']$/g, "")
		.trim();
	const match = /^(export\s+)?PATH=["']?([^"';&|`\s]+?)["']?$/.exec(line);
	const dirs = match?.[2]?.split(":") ?? [];
	return (
		dirs.length > 1 && dirs.some((d) => PATH_REF.test(d)) && dirs.every((d) => PATH_REF.test(d) || TOOL_BIN.test(d))
	);
}

/** A system configuration file (`/etc/hosts`, `/etc/resolv.conf`): writing it changes the machine for every user. */
export function isSystemFile(path: string): boolean {
	return /^\/etc\/[\w.-]/.test(path.trim());
}

const PYPI_HOSTS = /^(pypi\.org|files\.pythonhosted\.org|download\.pytorch\.org|pypi\.python\.org)$/;
const NPM_HOSTS = /^(registry\.npmjs\.org|registry\.yarnpkg\.com|registry\.npmmirror\.com)$/;

/** Package installs: custom indexes and URLs, look-alike names, global installs. */
function installHits(
	program: string,
	args: readonly string[],
	hit: (rule: string, severity?: "P1" | "P2") => void,
): void {
	let rest = args;
	let ecosystem: "pypi" | "npm" | undefined;
	if (program === "python" || program === "python3") {
		if (args[0] !== "-m" || (args[1] !== "pip" && args[1] !== "pip3")) return;
		rest = args.slice(2);
	}
	if (program === "uv" && args[0] === "pip") rest = args.slice(1);
	if (["pip", "pip3", "python", "python3", "uv", "pipx", "poetry"].includes(program)) ecosystem = "pypi";
	if (["npm", "pnpm", "yarn", "bun", "npx"].includes(program)) ecosystem = "npm";
	if ((program === "npm" || program === "pnpm" || program === "yarn") && rest[0] === "config") {
		if (rest.includes("registry") || rest.some((a) => a.startsWith("registry="))) hit("untrusted-package-source");
		return;
	}
	if (program === "pip" && rest[0] === "config" && rest.some((a) => /index-url/.test(a)))
		hit("untrusted-package-source");
	if (program === "gem" && rest.includes("--source")) hit("untrusted-package-source");
	if (program === "cargo" && rest[0] === "install" && rest.includes("--git")) hit("untrusted-package-source");
	if (!ecosystem || !["install", "i", "add"].includes(rest[0] ?? "")) return;
	const packages: string[] = [];
	for (let i = 1; i < rest.length; i++) {
		const a = rest[i] as string;
		const value = a.includes("=") ? a.slice(a.indexOf("=") + 1) : (rest[i + 1] ?? "");
		if (/^(-i|--index-url|--extra-index-url|--registry|-f|--find-links)(=|$)/.test(a)) {
			if (!a.includes("=")) i++;
			const host = /^https?:\/\/([^/:]+)/.exec(value)?.[1] ?? value;
			if (!(ecosystem === "pypi" ? PYPI_HOSTS : NPM_HOSTS).test(host)) hit("untrusted-package-source");
		} else if (a === "-g" || a === "--global") {
			if (ecosystem === "npm") hit("system-changes", "P2");
		} else if (/^(-r|--requirement|-c|--constraint|-e|--editable|-t|--target|--prefix)$/.test(a)) i++;
		else if (!a.startsWith("-")) packages.push(a);
	}
	for (const spec of packages) {
		if (
			/^(git\+|https?:\/\/|git:|github:|ssh:\/\/|[\w.-]{1,40}\/[\w.-]{1,100}#)/.test(spec) ||
			/\.(tgz|tar\.gz|whl|zip)$/.test(spec)
		) {
			// A package straight from a GitHub repository is visible source: worth knowing, not a custom index.
			const github = /^(git\+)?https:\/\/github\.com\/|^github:/.test(spec);
			if (!spec.startsWith(".") && !spec.startsWith("/")) hit("untrusted-package-source", github ? "P2" : undefined);
			continue;
		}
		const pinned = ecosystem === "pypi" ? /==/.test(spec) : /.@\d/.test(spec);
		const name = (ecosystem === "pypi" ? spec.split(/[=<>!~[;]/)[0] : spec.replace(/(.)@.{0,100}$/, "$1")) ?? "";
		if (isTyposquat(name.toLowerCase(), ecosystem)) hit("typosquat-package", pinned ? "P2" : undefined);
	}
}
