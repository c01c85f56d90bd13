/** P0 forbid, P1 needs approval, P2 information (shared/research/security-notes.md §2.5). */
export type AuditSeverity = "P0" | "P1" | "P2";

/** Where a line sits: code (fenced blocks, scripts, command lines), prose, or an HTML comment. */
export type LineContext = "code" | "prose" | "comment";

/** A line rule: a pattern checked on lines of the given contexts. */
export interface LineRule {
	id: string;
	severity: AuditSeverity;
	title: string;
	why: string;
	contexts: readonly LineContext[];
	pattern: RegExp;
}

const CODE: readonly LineContext[] = ["code"];
const PROSE: readonly LineContext[] = ["prose", "comment"];
const ANY: readonly LineContext[] = ["code", "prose", "comment"];

/** The rules that look at one line at a time. Commands are matched in code, phrases in prose. */
export const LINE_RULES: readonly LineRule[] = [
	{
		id: "unicode-tag-chars",
		severity: "P0",
		title: "Hidden Unicode tag characters",
		why: "Tag characters (U+E0000-U+E007F) are invisible and smuggle text to the model.",
		contexts: ANY,
		pattern: /[\u{E0000}-\u{E007F}]/u,
	},
	{
		id: "bidi-override",
		severity: "P0",
		title: "Bidirectional override in code",
		why: "Bidi controls make code read differently from how it runs (Trojan Source).",
		contexts: CODE,
		pattern: /[\u202A-\u202E\u2066-\u2069]/u,
	},
	{
		id: "hidden-html-directive",
		severity: "P0",
		title: "Hidden instruction in an HTML comment",
		why: "An HTML comment is invisible when the Markdown is rendered, but the model reads it.",
		contexts: ["comment"],
		pattern: /\b(ignore|always|never|must|do not|don't|execute|run|send|upload|read|delete|you are|instead)\b/i,
	},
	{
		id: "remote-to-interpreter",
		severity: "P0",
		title: "Remote content run by an interpreter",
		why: "Downloaded code runs unreviewed: whoever controls the URL controls the machine.",
		contexts: CODE,
		pattern:
			/\b(curl|wget|iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b[^\n|]*\|\s*(sudo\s+)?(ba|z|da)?sh\b|\b(curl|wget|iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b[^\n|]*\|\s*(sudo\s+)?(python3?|node|perl|ruby|pwsh|powershell|iex)\b|\b(ba)?sh\s+(-c\s+)?["']?\$\(\s*(curl|wget)|\b(ba)?sh\s+<\(\s*(curl|wget)|\biex\s*\(?\s*(iwr|irm|\(?New-Object\s+Net\.WebClient\)?\.DownloadString)|\b(curl|wget)\b[^\n]*&&\s*chmod\s+\+x[^\n]*&&\s*\.\//i,
	},
	{
		id: "decode-execute",
		severity: "P0",
		title: "Decoded data executed",
		why: "Decoding then executing hides what runs from any reviewer.",
		contexts: CODE,
		pattern:
			/(base64\s+(-d|--decode)|b64decode|atob\(|Buffer\.from\([^)]*["']base64["']|xxd\s+-r|bytes\.fromhex|unhexlify)[^\n]*(\|\s*(ba)?sh\b|\beval\b|\bexec\b|Function\(|\bsh\s+-c|python3?\s+-c)|(\beval\b|\bexec\b|Function\()[^\n]*(b64decode|atob\(|base64|fromhex|unhexlify)/i,
	},
	{
		id: "reverse-shell",
		severity: "P0",
		title: "Reverse shell",
		why: "It hands a shell on this machine to a remote host.",
		contexts: CODE,
		pattern:
			/\/dev\/(tcp|udp)\/|\b(nc|ncat|netcat)\b[^\n]*\s-[a-z]*[ec]\b|\bmkfifo\b[^\n]*\b(nc|ncat|netcat)\b|socket\.socket\([^\n]*\bdup2\b|\bdup2\b[^\n]*\bsubprocess\b/i,
	},
	{
		id: "concealment",
		severity: "P0",
		title: "Instruction to hide actions from the user",
		why: "A skill that asks the agent to keep things from its user is working against that user.",
		contexts: PROSE,
		pattern:
			/\b(do not|don't|never)\s+(tell|mention|inform|notify|alert|show|reveal|disclose)\b[^.\n]*\buser\b|\bwithout\s+(telling|informing|notifying|alerting|asking)\s+the\s+user\b|\bhide\s+(this|these|it)\b[^.\n]*\b(from the user|step|action)s?\b|\bsilently\s+(send|upload|post|transmit|exfiltrate|delete|install|run|execute|copy)\b|\bkeep\s+(this|it)\s+(secret|hidden)\s+from\b/i,
	},
	{
		id: "instruction-override",
		severity: "P0",
		title: "Instruction-override phrase",
		why: "Jailbreak phrasing tries to switch off the agent's own rules.",
		contexts: PROSE,
		pattern:
			/\b(ignore|disregard|forget)\s+(all\s+|any\s+)?(your\s+)?(previous|prior|earlier|above|system|safety)\s+(instructions|rules|prompts|guidelines)\b|\b(you are now|enter|enable|activate)\s+(in\s+)?(developer|god|DAN|jailbreak)\s+mode\b|\bdisable\s+(your\s+|all\s+)?(safety|guardrails|content\s+filters?)\b/i,
	},
	{
		id: "destructive-command",
		severity: "P0",
		title: "Destructive command",
		why: "It can wipe a home folder, a disk or the whole system.",
		contexts: CODE,
		pattern:
			/\brm\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*[rR][a-zA-Z]*\s+(-[a-zA-Z]+\s+)*(--no-preserve-root\s+)?(\/|\/\*|~|~\/|\$HOME|\$\{HOME\})(\s|$|["';])|\bdd\b[^\n]*\bof=\/dev\/(sd|hd|nvme|disk|mmcblk)|\bmkfs(\.\w+)?\s+\/dev\/|:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:/i,
	},
	{
		id: "persistence",
		severity: "P0",
		title: "Persistence on the machine",
		why: "It makes something run again later (cron, services, shell start-up, git hooks) or weakens SSH.",
		contexts: CODE,
		pattern:
			/\bcrontab\s+(-e|-|[^-\s])|\/etc\/cron|\blaunchctl\s+(load|bootstrap)|Library\/LaunchAgents|\bsystemctl\s+(--user\s+)?enable\b|\/etc\/systemd\/system|>>?\s*["']?(~|\$HOME)\/\.(bashrc|zshrc|profile|bash_profile|zprofile)|\.git\/hooks\/|core\.hooksPath|authorized_keys|StrictHostKeyChecking\s*=?\s*no|>>?\s*["']?[^\s]*\b(CLAUDE|AGENTS|MEMORY|SOUL)\.md\b|\.claude\/settings/i,
	},
	{
		id: "remote-instructions",
		severity: "P1",
		title: "Instructions fetched from the web at run time",
		why: "What the skill tells the agent then depends on a URL, not on the reviewed skill.",
		contexts: PROSE,
		pattern:
			/\b(fetch|download|read|load|follow|get|retrieve)\b[^.\n]{0,60}\b(instructions|rules|steps|prompt|skill|commands)\b[^.\n]{0,40}https?:\/\/|\bfollow\s+(the\s+)?(instructions|steps)\s+(at|from|in)\s+https?:\/\//i,
	},
	{
		id: "suspicious-url",
		severity: "P1",
		title: "Suspicious URL",
		why: "URL shorteners, paste sites, tunnels, raw IP addresses and plain http hide or weaken where data goes.",
		contexts: ANY,
		pattern:
			/https?:\/\/(bit\.ly|tinyurl\.com|t\.co|goo\.gl|is\.gd|pastebin\.com|paste\.ee|hastebin\.com|ghostbin\.|[\w-]+\.ngrok(-free)?\.(io|app)|[\w-]+\.trycloudflare\.com|serveo\.net)\b|https?:\/\/(\d{1,3}\.){3}\d{1,3}\b|\bhttp:\/\/(?!localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\]|example\.(com|org))[a-z0-9]/i,
	},
	{
		id: "hardcoded-secret",
		severity: "P1",
		title: "Hard-coded secret",
		why: "A key in a skill leaks to everyone who installs it, and may be used against its owner.",
		contexts: ANY,
		pattern:
			/\bAKIA[0-9A-Z]{16}\b|\bgh[pousr]_[A-Za-z0-9]{36,}\b|\bsk_live_[0-9a-zA-Z]{24,}\b|\bAIza[0-9A-Za-z_-]{35}\b|-----BEGIN (RSA |EC |OPENSSH |DSA )?PRIVATE KEY-----|\b(postgres(ql)?|mysql|mongodb(\+srv)?|redis):\/\/[^\s:/@]+:[^\s@]+@/,
	},
	{
		id: "encoded-blob",
		severity: "P1",
		title: "Large encoded blob",
		why: "A long base64 or hex string can hide code or instructions from review.",
		contexts: ANY,
		pattern: /[A-Za-z0-9+/]{200,}={0,2}|\b[0-9a-fA-F]{200,}\b/,
	},
	{
		id: "invisible-characters",
		severity: "P1",
		title: "Zero-width or invisible characters",
		why: "Invisible characters can split keywords or hide text from a reader.",
		contexts: ANY,
		// biome-ignore lint/suspicious/noMisleadingCharacterClass: the class is meant to match lone invisible marks.
		pattern: /[\u200B-\u200D\u2060\u00AD\u{E0100}-\u{E01EF}]|.\uFEFF/u,
	},
	{
		id: "system-changes",
		severity: "P1",
		title: "Privileged or system-wide change",
		why: "sudo, setuid, firewall changes and global installs change the machine beyond the task.",
		contexts: CODE,
		pattern:
			/(^|[\s;&|(])sudo\s|\bsu\s+-|\bchmod\s+(-R\s+)?(777|[ugoa]*\+s|[0-7]?4[0-7]{3})\b|\b(iptables|ufw|firewall-cmd)\b|\b(apt(-get)?|yum|dnf|pacman|apk)\s+(install|add)\b|\bnpm\s+(i|install)\s+(-g|--global)\b|\bpip3?\s+install\s+[^\n]*git\+/i,
	},
	{
		id: "permission-bypass",
		severity: "P1",
		title: "Agent safety switched off",
		why: "It asks the agent to skip its permission prompts or guard rails.",
		contexts: ANY,
		pattern:
			/--dangerously-skip-permissions|--yolo\b|--dangerously-bypass|\bunset\s+[A-Z_]*(GUARD|SAFE|SANDBOX)[A-Z_]*/,
	},
];

/** Credential stores and bulk environment dumps (for the read-and-send chain). */
export const CREDENTIAL_PATTERN: RegExp =
	/~?\/?\.ssh\/id_|\.aws\/credentials|\.config\/gcloud|\.kube\/config|\.docker\/config\.json|~\/\.netrc|\.npmrc|\.pypirc|\.gnupg|\bprintenv\b|(^\s*|[;&|]\s*|\$\(\s*)env\s*($|\||>)|JSON\.stringify\(\s*process\.env\s*\)|dict\(\s*os\.environ\s*\)|os\.environ\.copy\(\)|\bcat\s+[^\n]*\.env\b|Login Data|Keychains?\/|wallet\.dat/i;

/** Outbound network sends. */
export const NETWORK_PATTERN: RegExp =
	/\b(curl|wget|nc|ncat|scp|rsync)\b|\bfetch\(|\brequests\.(get|post|put|patch)\b|\burllib\.request\b|\bhttpx?\.(get|post|put)\b|\bhttps?\.request\(|\baxios\b|Invoke-(WebRequest|RestMethod)/i;

/** Executable file formats (by magic number). */
export function executableKind(bytes: Uint8Array): string | undefined {
	const [a, b, c, d] = bytes;
	if (a === 0x7f && b === 0x45 && c === 0x4c && d === 0x46) return "ELF executable";
	if (a === 0x4d && b === 0x5a) return "Windows executable";
	if ((a === 0xfe && b === 0xed && c === 0xfa) || (a === 0xcf && b === 0xfa && c === 0xed && d === 0xfe))
		return "Mach-O executable";
	if (a === 0xca && b === 0xfe && c === 0xba && d === 0xbe) return "Mach-O universal binary";
	return undefined;
}
