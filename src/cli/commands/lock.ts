import { dirname } from "node:path";
import type { ParseArgsConfig } from "node:util";
import {
	comparePackage,
	createLock,
	hashPackage,
	MAX_LOCK_FILE_BYTES,
	NotRegularFileError,
	parseLock,
	readRegularFile,
	renderLock,
	withFileLock,
	writeFileAtomic,
} from "../../runtime/index.ts";
import type { Diagnostic } from "../../skill/index.ts";
import { type DiscoveryFlagValues, discoverFor, discoveryFlags, discoveryUsage } from "../discovery-flags.ts";
import { type CliIo, type CommandResult, type Rendered, type Style, UsageError } from "../io.ts";
import { plural, renderDiagnostic } from "../render-diagnostics.ts";
import { lockPath } from "../session-flags.ts";
import { emptyWorkspace, resolveWorkspaceArg } from "../workspace.ts";

/** The command's options, for `node:util` parseArgs. */
export const options: NonNullable<ParseArgsConfig["options"]> = {
	...discoveryFlags,
	verify: { type: "boolean", default: false },
	lock: { type: "string" },
	json: { type: "boolean", default: false },
};

/** Shown with --help and after a usage error. */
export const usage: string = `Usage: skillset lock [DIR] [options]

Pin every selected skill: write skills.lock.json with each file's SHA-256 and each skill's package digest
(files walked without following links, sorted POSIX paths). With --verify, compare instead of writing.

${discoveryUsage}

Options:
  --verify                   check the skills against the lock file; write nothing
  --lock FILE                the lock file (default: skills.lock.json in the workspace)
  --json                     print the result as JSON

Exit status: 0 locked (or all match), 1 a skill differs or could not be hashed, 2 usage error.`;

/** One skill's line in the result. */
export interface LockLine {
	name: string;
	status: "locked" | "ok" | "changed" | "unlocked" | "gone";
	digest?: string;
	changed?: string[];
	extra?: string[];
	missing?: string[];
	problems?: string[];
}

/** What `lock` did. */
export interface LockResult {
	file: string;
	verify: boolean;
	skills: LockLine[];
	/** With --verify: skills that match the lock, and skills that differ (changed, not locked, or gone). */
	matched?: number;
	differ?: number;
	/** A DIR that named no skill (missing, not a folder, no skills), or the lock file that could not be written. */
	problems: Diagnostic[];
	error?: string;
}

/** Writes (or verifies) the lock for the selected skills. */
export async function run(
	values: DiscoveryFlagValues & { verify?: boolean; lock?: string },
	positionals: readonly string[],
	io: CliIo,
): Promise<CommandResult<LockResult>> {
	if (positionals.length > 1) throw new UsageError("lock takes at most one DIR");
	const dir = positionals[0];
	const verifying = values.verify === true;
	const named = await resolveWorkspaceArg(dir, values, io);
	if (!named.ok) {
		const file = lockPath(values, io.cwd, io.cwd);
		return { exitCode: 1, data: { file, verify: verifying, skills: [], problems: [named.diagnostic] } };
	}
	const file = lockPath(values, io.cwd, named.workspace);
	const { index, report } = await discoverFor(named.values, named.workspace, io);
	const empty = await emptyWorkspace("lock", dir, named.workspace, report, io);
	const data: LockResult = { file, verify: verifying, skills: [], problems: empty ? [empty] : [] };
	if (empty) return { exitCode: 1, data };
	// Remote skills are pinned by their origin's digests and the verified cache, not by a workspace lock (whose
	// paths would point into this machine's cache).
	const selected = index.selected.filter((skill) => !skill.origin);
	if (verifying) {
		data.skills = await verify(file, selected);
		data.matched = data.skills.filter((s) => s.status === "ok").length;
		data.differ = data.skills.length - data.matched;
	} else {
		const written = await write(file, selected);
		if (typeof written === "string") data.error = written;
		else data.skills = written;
	}
	const failed =
		data.error !== undefined ||
		data.skills.some((s) => s.status !== "ok" && s.status !== "locked") ||
		data.skills.some((s) => s.problems?.length);
	return { exitCode: failed ? 1 : 0, data };
}

/**
 * Writes the lock atomically, holding the lock file's lock (as `add`, `update` and `remove` do), with the install
 * sources re-read under it; an I/O failure (a folder, no permission) is returned as a message.
 */
async function write(file: string, skills: Parameters<typeof createLock>[0]): Promise<LockLine[] | string> {
	let created: ReturnType<typeof createLock>;
	try {
		created = await withFileLock(
			file,
			async () => {
				const previous = parseLock(await readLockText(file).catch(() => "{}"));
				const made = createLock(skills, dirname(file), "error" in previous ? undefined : previous);
				await writeFileAtomic(file, renderLock(made.lock));
				return made;
			},
			"the lock file",
		);
	} catch (error) {
		return `cannot write the lock file ${file}: ${(error as NodeJS.ErrnoException).code ?? error}`;
	}
	const { lock, problems } = created;
	return Object.entries(lock.skills).map(([name, skill]) => {
		const found = problems.find((p) => p.name === name);
		return { name, status: "locked", digest: skill.digest, ...(found ? { problems: found.problems } : {}) };
	});
}

async function verify(file: string, skills: Parameters<typeof createLock>[0]): Promise<LockLine[]> {
	let text: string;
	try {
		text = await readLockText(file);
	} catch (error) {
		if (error instanceof NotRegularFileError) throw new UsageError(error.message);
		throw new UsageError(
			`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? error} (run 'skillset lock' first)`,
		);
	}
	const lock = parseLock(text);
	if ("error" in lock) throw new UsageError(`${file}: ${lock.error}`);
	const lines: LockLine[] = skills.map((skill) => {
		const locked = lock.skills[skill.name];
		if (!locked) return { name: skill.name, status: "unlocked" };
		const current = hashPackage(dirname(skill.realFile));
		const difference = comparePackage(current, locked);
		const same = difference.changed.length + difference.extra.length + difference.missing.length === 0;
		return same
			? { name: skill.name, status: "ok", digest: current.digest }
			: { name: skill.name, status: "changed", ...difference };
	});
	const present = new Set(skills.map((s) => s.name));
	for (const name of Object.keys(lock.skills)) if (!present.has(name)) lines.push({ name, status: "gone" });
	return lines;
}

/** The lock file's text, bounded: a FIFO or device in its place (a link to `/dev/zero`) is refused at once. */
function readLockText(file: string): Promise<string> {
	return readRegularFile(file, MAX_LOCK_FILE_BYTES);
}

/** How many locked skills have files that could not be hashed, for the summary line. */
function notHashed(skills: readonly LockLine[]): string {
	const count = skills.filter((s) => s.problems?.length).length;
	return count > 0 ? ` (${count} with files not hashed: the lock does not cover them)` : "";
}

/** One line per skill, then a summary; a DIR without skills or a lock that could not be written, on stderr. */
export function render(data: LockResult, style: Style): Rendered {
	const errors = [
		...data.problems.map((d) => renderDiagnostic(d, style)),
		...(data.error ? [`skillset: ${data.error}`] : []),
	];
	if (errors.length > 0) return { stdout: "", stderr: `${errors.join("\n")}\n` };
	const lines = data.skills.map((s) => {
		const details = [
			s.changed?.length ? `changed: ${s.changed.join(", ")}` : "",
			s.extra?.length ? `extra: ${s.extra.join(", ")}` : "",
			s.missing?.length ? `missing: ${s.missing.join(", ")}` : "",
			s.problems?.length ? `not hashed: ${s.problems.join(", ")}` : "",
			s.status === "unlocked" ? "not in the lock" : "",
			s.status === "gone" ? "in the lock but not found" : "",
		].filter(Boolean);
		const status = s.status === "ok" || s.status === "locked" ? s.status : style.red(s.status);
		return `${s.name}  ${status}${details.length ? `  ${details.join("; ")}` : ""}`;
	});
	lines.push(
		data.verify
			? `${plural(data.skills.length, "skill")} verified against ${data.file}: ${data.matched ?? 0} match, ${data.differ ?? 0} differ`
			: `${plural(data.skills.length, "skill")} locked in ${data.file}${notHashed(data.skills)}`,
	);
	return { stdout: `${lines.join("\n")}\n`, stderr: "" };
}
