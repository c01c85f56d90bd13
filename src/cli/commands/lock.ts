import { readFile, rename, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import type { ParseArgsConfig } from "node:util";
import { comparePackage, createLock, hashPackage, parseLock, renderLock } from "../../runtime/index.ts";
import { type DiscoveryFlagValues, discoverFor, discoveryFlags, discoveryUsage } from "../discovery-flags.ts";
import { type CliIo, type CommandResult, type Style, UsageError } from "../io.ts";
import { lockPath } from "../session-flags.ts";

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
}

/** Writes (or verifies) the lock for the selected skills. */
export async function run(
	values: DiscoveryFlagValues & { verify?: boolean; lock?: string },
	positionals: readonly string[],
	io: CliIo,
): Promise<CommandResult<LockResult>> {
	if (positionals.length > 1) throw new UsageError("lock takes at most one DIR");
	const file = lockPath(values, io.cwd, resolve(io.cwd, positionals[0] ?? "."));
	const { index } = await discoverFor(values, positionals[0], io);
	const skills = values.verify ? await verify(file, index.selected) : await write(file, index.selected);
	const failed =
		skills.some((s) => s.status !== "ok" && s.status !== "locked") || skills.some((s) => s.problems?.length);
	return { exitCode: failed ? 1 : 0, data: { file, verify: values.verify === true, skills } };
}

async function write(file: string, skills: Parameters<typeof createLock>[0]): Promise<LockLine[]> {
	const previous = parseLock(await readFile(file, "utf8").catch(() => "{}"));
	const { lock, problems } = createLock(skills, dirname(file), "error" in previous ? undefined : previous);
	// Written to a temporary file and renamed, so a reader never sees half a lock.
	const temporary = `${file}.${process.pid}.tmp`;
	await writeFile(temporary, renderLock(lock));
	await rename(temporary, file);
	return Object.entries(lock.skills).map(([name, skill]) => {
		const found = problems.find((p) => p.name === name);
		return { name, status: "locked", digest: skill.digest, ...(found ? { problems: found.problems } : {}) };
	});
}

async function verify(file: string, skills: Parameters<typeof createLock>[0]): Promise<LockLine[]> {
	let text: string;
	try {
		text = await readFile(file, "utf8");
	} catch (error) {
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

/** One line per skill, then a summary. */
export function render(data: LockResult, style: Style): string {
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
	const verb = data.verify ? "verified against" : "written to";
	lines.push(`${data.skills.length} skill(s) ${verb} ${data.file}`);
	return `${lines.join("\n")}\n`;
}
