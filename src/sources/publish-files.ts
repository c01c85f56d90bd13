import { lstatSync } from "node:fs";
import { listContained, readContained } from "../runtime/index.ts";
import type { SourceErrorCode } from "./errors.ts";
import { DEFAULT_UNPACK_LIMITS } from "./unpack-limits.ts";

/** Why a file was left out of a published skill by default: a dot-file (or folder), or an editor or OS leftover. */
export type OmitReason = "hidden" | "backup";

/** A file that goes into a published artifact, read once through the contained reader. */
export interface PublishFile {
	path: string;
	data: Uint8Array;
	executable: boolean;
}

/** What of a skill folder is published, what was left out, and why the skill cannot be published (if it cannot). */
export interface PublishSelection {
	files: PublishFile[];
	omitted: { path: string; reason: OmitReason }[];
	refusals: { code: SourceErrorCode; message: string }[];
}

// Editor and OS leftovers: `file~` (Emacs and many editors), `#file#` (Emacs autosave), Vim swap files (`.swa` to
// `.swp`), `.bak`/`.backup`/`.orig`/`.rej`/`.old`/`.tmp` copies, and Windows' Thumbs.db and desktop.ini.
const BACKUP = /(~|\.sw[a-p]|\.bak|\.backup|\.orig|\.rej|\.old|\.tmp)$|^#.*#$|^(thumbs\.db|desktop\.ini)$/i;

// Names of files that hold credentials, reviewed from the file signatures of gitrob and gitleaks' path rules:
// private SSH keys (`id_rsa`, `deploy_ed25519`; their `.pub` halves are public), cloud and registry credential
// files, token-bearing dot-files, and key stores.
const CREDENTIAL_NAME =
	/^(id_(rsa|dsa|ecdsa|ed25519)(_sk)?|.+_(rsa|dsa|ecdsa|ed25519)|credentials(\.(json|xml|ya?ml|csv))?|client_secrets?.*\.json|.*service[-_]?account.*\.json|[._]?netrc|\.?npmrc|\.?pypirc|\.?yarnrc\.yml|\.git-credentials|\.?pgpass|\.?s3cfg|\.?boto|\.?dockercfg|\.?htpasswd|\.env(\..+)?|.+\.env|terraform\.tfvars|master\.key|secrets?\.(json|ya?ml|toml))$/i;
const CREDENTIAL_EXTENSION = /\.(pem|key|p12|pfx|pkcs12|jks|keystore|ppk|kdbx|ovpn|tfstate)$/i;
// Contents that are a credential whatever the file is called: a private key block, and tokens with a fixed,
// checkable shape (GitHub, npm, Slack, AWS access key ids other than the documentation's *EXAMPLE keys).
const CREDENTIAL_CONTENT: readonly [RegExp, string][] = [
	[/-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/, "a private key block"],
	[/\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/, "a GitHub token"],
	[/\bnpm_[A-Za-z0-9]{36}\b/, "an npm token"],
	[/\bxox[abprs]-[A-Za-z0-9-]{10,}/, "a Slack token"],
	[/\b(?:AKIA|ASIA)(?![0-9A-Z]{9}EXAMPLE)[0-9A-Z]{16}\b/, "an AWS access key id"],
];

/**
 * Chooses the files of a skill folder to publish. Dot-files and dot-folders, and editor or OS leftovers, are left
 * out (and named) unless `include` names them or a folder above them. A link, a special file, a file that looks
 * like a credential (by name or content) and is not itself named by `include`, or a skill that `add` could not
 * unpack (over 2,000 files, 8 MiB a file or 64 MiB in all) refuses the skill. `include` holds paths relative to the
 * skill folder, or prefixed with the skill's name.
 */
export function selectPublishFiles(dir: string, skill: string, include: readonly string[]): PublishSelection {
	const named = new Set(include.map((path) => path.replace(/^\.\//, "").replace(/\/+$/, "")));
	const isNamed = (path: string) => named.has(path) || named.has(`${skill}/${path}`);
	const covered = (path: string) => path.split("/").some((_, i, parts) => isNamed(parts.slice(0, i + 1).join("/")));
	const selection: PublishSelection = { files: [], omitted: [], refusals: [] };
	const problems = new Map<SourceErrorCode, string[]>();
	const problem = (code: SourceErrorCode, text: string) => problems.set(code, [...(problems.get(code) ?? []), text]);
	const paths = walk(dir, covered, selection, problem);
	let total = 0;
	for (const path of paths) {
		const read = readContained(dir, path, { maxBytes: DEFAULT_UNPACK_LIMITS.maxFileBytes });
		if (!read.ok) {
			problem(read.code === "resource.symlink" ? "publish.link" : "publish.invalid", `${path} (${read.message})`);
			continue;
		}
		total += read.size;
		const credential = isNamed(path) ? undefined : credentialIn(path, read.bytes);
		if (credential) problem("publish.credential", `${path} (${credential})`);
		const executable = (lstatSync(read.absolute).mode & 0o111) !== 0;
		selection.files.push({ path, data: read.bytes, executable });
	}
	if (total > DEFAULT_UNPACK_LIMITS.maxTotalBytes) {
		problem("publish.invalid", `its files pass ${DEFAULT_UNPACK_LIMITS.maxTotalBytes} bytes in all`);
	}
	for (const [code, texts] of problems) selection.refusals.push({ code, message: refusalText(skill, code, texts) });
	return selection;
}

/** The folder's files below `dir`, breadth first, never through a link; leaves out what is not `covered`. */
function walk(
	dir: string,
	covered: (path: string) => boolean,
	selection: PublishSelection,
	problem: (code: SourceErrorCode, text: string) => void,
): string[] {
	const found: string[] = [];
	const pending = [""];
	while (pending.length > 0) {
		const rel = pending.shift() as string;
		const listed = listContained(dir, rel);
		if (!listed.ok) {
			problem("publish.invalid", `${rel || "."} (${listed.message})`);
			continue;
		}
		for (const entry of listed.entries) {
			const path = rel ? `${rel}/${entry.name}` : entry.name;
			const reason = entry.name.startsWith(".") ? "hidden" : BACKUP.test(entry.name) ? "backup" : undefined;
			if (reason && !covered(path)) selection.omitted.push({ path, reason });
			else if (entry.kind === "symlink") problem("publish.link", `${path} (a symbolic link)`);
			else if (entry.kind === "directory") pending.push(path);
			else if (entry.kind === "file") found.push(path);
			else problem("publish.invalid", `${path} (not a regular file)`);
		}
		if (found.length > DEFAULT_UNPACK_LIMITS.maxEntries) {
			problem("publish.invalid", `more than ${DEFAULT_UNPACK_LIMITS.maxEntries} files`);
			return [];
		}
	}
	return found;
}

/** What makes a file look like a credential, or undefined. */
export function credentialIn(path: string, bytes: Uint8Array): string | undefined {
	const name = path.slice(path.lastIndexOf("/") + 1);
	if (CREDENTIAL_NAME.test(name)) return "a credential file's name";
	const extension = CREDENTIAL_EXTENSION.exec(name);
	if (extension) return `a key or key store (*${extension[0].toLowerCase()})`;
	const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
	for (const [pattern, what] of CREDENTIAL_CONTENT) if (pattern.test(text)) return `holds ${what}`;
	return undefined;
}

function refusalText(skill: string, code: SourceErrorCode, texts: readonly string[]): string {
	const list = `${texts.slice(0, 20).join(", ")}${texts.length > 20 ? `, and ${texts.length - 20} more` : ""}`;
	if (code === "publish.credential") {
		return `${skill} holds files that look like credentials: ${list}; publish refuses them: remove them, or name each with --include PATH`;
	}
	if (code === "publish.link") return `${skill} holds links, which are never published: ${list}`;
	return `${skill} cannot be published: ${list}`;
}
