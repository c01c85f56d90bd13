/** P0 forbid, P1 needs approval, P2 information (shared/research/security-notes.md §2.5). */
export type AuditSeverity = "P0" | "P1" | "P2";

/** How sure the audit is that a finding is what its rule says: a literal payload, a likely one, or a hint. */
export type AuditConfidence = "high" | "medium" | "low";

/**
 * Where the text of a finding sits, which sets its severity: a script in the package, a command the agent is told
 * to run (code in a Markdown file), a data file, a documented example, a table row, prose, an HTML comment, or the
 * package itself (files, declarations).
 */
export type AuditContext = "script" | "step" | "data" | "example" | "table" | "prose" | "comment" | "package";

/** One rule of the catalogue: its id, its most severe level, a title and why it matters. */
export interface AuditRule {
	id: string;
	severity: AuditSeverity;
	title: string;
	why: string;
}

const rule = (id: string, severity: AuditSeverity, title: string, why: string): AuditRule => ({
	id,
	severity,
	title,
	why,
});

/**
 * Every rule with its most severe level. A finding's own severity can be lower: commands in examples, tables and
 * negations ("never run …") drop to P2, data files one level, and a source without a sink in the same flow to P1.
 */
export const AUDIT_RULES: readonly AuditRule[] = [
	rule(
		"unicode-tag-chars",
		"P0",
		"Hidden Unicode tag characters",
		"Tag characters (U+E0000-U+E007F) are invisible and smuggle text to the model.",
	),
	rule(
		"bidi-override",
		"P0",
		"Bidirectional control characters",
		"Bidi controls make text and code read differently from how they run (Trojan Source); P1 in prose.",
	),
	rule(
		"invisible-characters",
		"P1",
		"Zero-width or invisible characters",
		"Invisible characters inside words or in runs split keywords or hide text from a reader.",
	),
	rule(
		"hidden-html-directive",
		"P0",
		"Hidden instruction in an HTML comment",
		"An HTML comment is invisible when the Markdown is rendered, but the model reads it.",
	),
	rule(
		"instruction-override",
		"P0",
		"Goal hijack: ignore the user or the system",
		"Text that tells the agent to ignore its instructions or its user works against that user (any language).",
	),
	rule(
		"concealment",
		"P0",
		"Instruction to hide actions from the user",
		"A skill that asks the agent to keep things from its user is working against that user (any language).",
	),
	rule(
		"conversation-exfiltration",
		"P0",
		"Conversation or system prompt sent out",
		"Sending the conversation, the system prompt or the user's files to a URL leaks everything the agent saw.",
	),
	rule(
		"install-lure",
		"P0",
		"Lure to download and run a tool",
		"A 'required' tool fetched from a URL and run (often from a password-protected archive) is how malware ships.",
	),
	rule(
		"remote-instructions",
		"P1",
		"Instructions fetched from the web at run time",
		"What the skill tells the agent then depends on a URL, not on the reviewed skill.",
	),
	rule(
		"remote-to-interpreter",
		"P0",
		"Remote content run by an interpreter",
		"Downloaded code runs unreviewed: whoever controls the URL controls the machine.",
	),
	rule(
		"download-execute",
		"P0",
		"Downloaded file executed",
		"A file fetched from the network and then run (across lines, `&&` or `;`) is remote code execution.",
	),
	rule("decode-execute", "P0", "Decoded data executed", "Decoding then executing hides what runs from any reviewer."),
	rule(
		"staged-execute",
		"P1",
		"Code run from a temporary folder",
		"A file in /tmp evaluated, or a hidden one there run or sourced: whatever wrote it decides what runs.",
	),
	rule(
		"obfuscated-endpoint",
		"P0",
		"Endpoint hidden by encoding or concatenation",
		"A URL hidden in base64 or split strings and then called hides where data goes; P1 without a network call.",
	),
	rule("reverse-shell", "P0", "Reverse shell", "It hands a shell on this machine to a remote host."),
	rule(
		"credential-exfiltration",
		"P0",
		"Credentials read and sent out",
		"Key files, credential stores or the whole environment read and sent over the network in one flow.",
	),
	rule(
		"secret-exfiltration",
		"P0",
		"Secret variable sent to a foreign host",
		"A token from the environment placed in a request, header, query or DNS name leaves with the request.",
	),
	rule(
		"secret-harvest",
		"P0",
		"Instruction to collect secrets",
		"Prose telling the agent to gather .env files, keys or browser profiles into answers or requests (any language).",
	),
	rule(
		"output-manipulation",
		"P1",
		"Instruction to fake results",
		"Tests edited until they pass, failures hidden or success reported whatever happened deceive the user.",
	),
	rule(
		"lookalike-name",
		"P0",
		"Look-alike name or host",
		"Letters of two scripts in one name (Cyrillic а in a Latin host) imitate a trusted name; P1 in prose and for punycode.",
	),
	rule(
		"sensitive-read",
		"P1",
		"Credentials or environment read",
		"Reading key files, credential stores or the whole environment needs a reason and the user's approval.",
	),
	rule(
		"destructive-command",
		"P0",
		"Destructive command",
		"It can wipe the project, a home folder, a disk or the whole system.",
	),
	rule(
		"wide-permissions",
		"P0",
		"Permissions opened on broad paths",
		"chmod 777 or chown over a home, the project or the system lets anyone change anything.",
	),
	rule(
		"host-exposure",
		"P0",
		"Host exposed to a container",
		"Mounting / into a container hands it the host; the Docker socket or --privileged nearly so (P1).",
	),
	rule(
		"persistence",
		"P0",
		"Persistence on the machine",
		"It writes shell profiles, cron, services, git hooks, SSH keys or agent settings, so something runs later.",
	),
	rule(
		"permission-bypass",
		"P1",
		"Agent safety switched off",
		"It asks the agent to skip its permission prompts, approvals or sandbox.",
	),
	rule(
		"system-changes",
		"P1",
		"Privileged or system-wide change",
		"setuid bits and firewall changes alter the machine beyond the task (P1); sudo and system packages are P2.",
	),
	rule(
		"untrusted-package-source",
		"P1",
		"Install from a custom index or URL",
		"Packages from a custom index, registry, git URL or tarball bypass the registry everyone reviews.",
	),
	rule(
		"typosquat-package",
		"P1",
		"Package name one edit from a popular one",
		"An unpinned install of a look-alike name (`reqeusts`) is the classic typosquat.",
	),
	rule(
		"install-hook",
		"P1",
		"Install-time hook",
		"A postinstall-style hook runs code on install, before anyone looks; P0 when it fetches or decodes code.",
	),
	rule(
		"suspicious-url",
		"P1",
		"Suspicious URL",
		"URL shorteners, paste sites, tunnels, request catchers and public raw IP addresses hide where data goes.",
	),
	rule(
		"hardcoded-secret",
		"P1",
		"Hard-coded secret",
		"A key in a skill leaks to everyone who installs it, and may be used against its owner.",
	),
	rule(
		"encoded-blob",
		"P1",
		"Large encoded blob",
		"A long base64 or hex string can hide code or instructions from review.",
	),
	rule(
		"binary-executable",
		"P0",
		"Executable file in the package",
		"A compiled program cannot be reviewed like a script.",
	),
	rule(
		"archive-entry",
		"P0",
		"Dangerous archive entry",
		"An archive entry that leaves the folder (`../`, absolute) is P0; an executable inside an archive is P1.",
	),
	rule(
		"skill-unreadable",
		"P1",
		"SKILL.md not audited",
		"The skill's SKILL.md could not be read, so the skill cannot be called clean.",
	),
	rule(
		"undeclared-network",
		"P1",
		"Network use beyond the declared permissions",
		"The scripts reach the network although the manifest says they do not.",
	),
	rule("broad-allowed-tools", "P1", "Over-broad allowed-tools", "A bare Bash or a wildcard pre-approves any command."),
	rule(
		"not-walked",
		"P0",
		"Package past the walk bounds",
		"Folders too deep or too many files were not walked; a skill is never installed with files the audit did not walk.",
	),
	rule(
		"not-inspected",
		"P1",
		"File not inspected",
		"Binaries, undecodable archive entries, links, unreadable files and files over the size cap were not read; P1 when one could hold code and the skill runs code, P2 otherwise (images, fonts).",
	),
	rule(
		"plain-http",
		"P2",
		"Plain-http URL",
		"Plain http can be read and changed on the way; alone it is information, never a reason to block.",
	),
	rule("network-use", "P2", "Network use", "The scripts use the network; declare it in permissions.network."),
	rule("missing-license", "P2", "No licence", "Users cannot tell under which terms they may use the skill."),
	rule("long-description", "P2", "Over-long description", "Descriptions over 1,024 characters are cut in catalogs."),
];

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
