import { execFileSync } from "node:child_process";
import {
	chmodSync,
	chownSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	renameSync,
	rmSync,
	statSync,
	symlinkSync,
	utimesSync,
	writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { createSession, type DiscoverOptions, type DiscoveryResult, discover, estimateTokenizer } from "skillset";
import { beforeAll, describe, expect, it } from "vitest";
import { pastRacyWindow } from "../helpers/racy.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";
import {
	comparable,
	folderAttacks,
	forgePayload,
	forgeResultPayload,
	forgeText,
	readResultPayload,
} from "./index-helpers.ts";

// Issue 23: a warm discover() with nothing changed returns the saved, resolved result (after collisions, with its
// diagnostics) after checking every signature it depends on. It must equal a cold run's result exactly, and a
// result that was forged, is stale, racy, or not ours must be passed over (the scan then runs and is right).

let base: string;
let rootA: string;
let rootB: string;

beforeAll(async () => {
	base = await tempDir();
	rootA = join(base, "a");
	rootB = join(base, "b");
	await writeTree(rootA, {
		"shared/SKILL.md": skillMd("shared", "The workspace copy wins."),
		"plain/SKILL.md": skillMd("plain", "A plain skill.", "metadata:\n  version: 1.0\nx-custom:\n  list: [1, two]"),
		"group/one/SKILL.md": skillMd("twin", "First of two with one name."),
		"group/two/SKILL.md": skillMd("twin", "Second of two with one name."),
		"no-description/SKILL.md": "---\nname: no-description\n---\nBody\n",
		"unclosed/SKILL.md": "---\nname: unclosed\ndescription: never closed\n",
		"lower/skill.md": skillMd("lower", "A lower-case file name."),
		"outer/SKILL.md": skillMd("outer", "Has a nested skill."),
		"outer/inner/SKILL.md": skillMd("inner", "Nested."),
		".hidden/secret/SKILL.md": skillMd("secret", "Hidden."),
		"off/SKILL.md": skillMd("off", "Switched off."),
		// Not ASCII: the saved result must read back as written (most are ASCII, and read as such).
		"unicode/SKILL.md": skillMd("unicode", "Grüße, 日本語 and 🚀 in a description."),
	});
	await writeTree(rootB, {
		"shared/SKILL.md": skillMd("shared", "The user copy is shadowed."),
		"only-b/SKILL.md": skillMd("only-b", "Only in the second root."),
	});
	await pastRacyWindow();
}, 60_000);

let caches = 0;
function options(cacheDir?: string): DiscoverOptions {
	const roots = [rootA, rootB, join(base, "absent")];
	return {
		cwd: base,
		home: join(base, "no-home"),
		defaultRoots: false,
		roots,
		disabled: ["off"],
		...(cacheDir ? { cacheDir } : {}),
	};
}

function expectSame(warm: DiscoveryResult, cold: DiscoveryResult): void {
	expect(warm.index.skills).toStrictEqual(cold.index.skills);
	expect(comparable(warm.report)).toStrictEqual(comparable(cold.report));
	expect(JSON.parse(JSON.stringify(comparable(warm.report)))).toStrictEqual(
		JSON.parse(JSON.stringify(comparable(cold.report))),
	);
}

/** The one saved result of a cache folder. */
function resultFile(cacheDir: string): string {
	const folder = join(cacheDir, "discovery-result");
	const names = readdirSync(folder).filter((name) => name.endsWith(".json"));
	expect(names).toHaveLength(1);
	return join(folder, names[0] as string);
}

type Payload = {
	key: string;
	checks: unknown[][];
	skills: unknown[][];
	rejected: unknown[][];
	diagnostics: unknown[][];
};

/** The saved row of the skill named `name` (the first with `status`, when given). */
function rowOf(payload: Payload, name: string, status?: string): unknown[] {
	const row = payload.skills.find((r) => r[2] === name && (status === undefined || r[5] === status));
	if (!row) throw new Error(`no saved row for ${name}`);
	return row;
}

/** Renames the checked path of `name`'s SKILL.md to `fileName` in its folder. */
function renameChecked(payload: Payload, name: string, fileName: string): void {
	const [root, at] = rowOf(payload, name) as [number, number];
	const rels = (payload.checks[root] as unknown[])[8] as string[];
	rels[at] = (rels[at] as string).replace(/SKILL\.md$/, fileName);
}

/** A copy of a skill's row under another name, for the same SKILL.md (what resolution alone would let stand). */
function twinOf(row: unknown[]): unknown[] {
	const twin = structuredClone(row);
	twin[2] = "twin";
	(twin[8] as Record<string, unknown>).name = "twin";
	return twin;
}

function setStatus(payload: Payload, name: string, to: string, from?: string): void {
	rowOf(payload, name, from)[5] = to;
}

/** A cache with a saved result, and the result file with the description of `plain` replaced (digest kept valid). */
async function forgedCache(forge?: (payload: Payload) => void): Promise<{ cacheDir: string; file: string }> {
	const cacheDir = join(base, `cache-${caches++}`);
	await discover(options(cacheDir));
	const file = resultFile(cacheDir);
	const payload = readResultPayload(file) as unknown as Payload;
	const plain = payload.skills.find((row) => row[2] === "plain");
	if (!plain) throw new Error("no plain skill saved");
	// The description is not saved apart: it follows from the properties, so that is where a forger changes it.
	(plain[8] as Record<string, unknown>).description = "FORGED";
	forge?.(payload);
	forgeResultPayload(file, payload as unknown as Record<string, unknown>);
	return { cacheDir, file };
}

const described = (result: DiscoveryResult) => result.index.get("plain")?.description;

describe("the saved result of a discover()", { timeout: 60_000 }, () => {
	it("is what a warm run returns, equal to a cold run's down to prototypes, order and diagnostics", async () => {
		const cacheDir = join(base, `cache-${caches++}`);
		const uncached = await discover(options());
		const cold = await discover(options(cacheDir));
		expectSame(cold, uncached);
		const warm = await discover(options(cacheDir));
		expectSame(warm, uncached);
		expect(warm.report.reused.files).toBe(warm.index.size + warm.report.rejected.length);
		// The tree has what resolution decides: a shadowed copy, a rejected name shared in one root, a disabled
		// skill, invalid skills, a nested one, a hidden folder and a misnamed file.
		const statuses = warm.index.skills.map((skill) => skill.status);
		expect(statuses).toEqual(expect.arrayContaining(["selected", "shadowed", "disabled"]));
		const codes = [...warm.report.diagnostics, ...warm.report.rejected.flatMap((r) => r.diagnostics)].map(
			(d) => d.code,
		);
		expect(codes).toEqual(expect.arrayContaining(["entry.nested", "walk.hidden-skipped"]));
		expect(warm.report.rejected.length).toBeGreaterThanOrEqual(2);
		expect(Object.getPrototypeOf(warm.index.get("plain")?.properties.metadata)).toBeNull();
		expect(Object.isFrozen(warm.index.skills[0])).toBe(true);
		expect(warm.index.get("unicode")?.description).toBe("Grüße, 日本語 and 🚀 in a description.");
		// It is the saved result that answered: a value changed in it (with a valid digest) shows.
		const { cacheDir: forged } = await forgedCache();
		expect(described(await discover(options(forged)))).toBe("FORGED");
	});

	const FORGERIES: [string, (payload: Payload) => void][] = [
		// A skill names its SKILL.md by its place among its root's checks: a folder's place, or one past them, is none.
		["a skill file that is a checked folder", (p) => (rowOf(p, "plain")[1] = 0)],
		["a skill file past the checks", (p) => (rowOf(p, "plain")[1] = 1_000_000)],
		["a skill file that is not a SKILL.md", (p) => renameChecked(p, "plain", "notes.md")],
		["two skills naming one SKILL.md", (p) => p.skills.push(twinOf(rowOf(p, "plain")))],
		["a checked path outside its root", (p) => (p.checks[0] as unknown[][])[8]?.splice(1, 1, "../../etc")],
		["a root number past the roots", (p) => ((p.skills[0] as unknown[])[0] = 7)],
		["a status nobody knows", (p) => ((p.skills[0] as unknown[])[5] = "root")],
		["a diagnostic code nobody knows", (p) => ((p.diagnostics[0] as unknown[])[0] = "grant.all")],
		// Lines and columns count from 1, as the per-root index reads them: no diagnostic is placed at line 0.
		["a diagnostic placed at line 0", (p) => (p.diagnostics[0] as unknown[]).splice(5, 2, 0, 0)],
		["a property nobody knows", (p) => (((p.skills[0] as unknown[])[8] as Record<string, unknown>).grant = "all")],
		["a description that is not text", (p) => ((rowOf(p, "plain")[8] as Record<string, unknown>).description = 7)],
		["a description saved beside the properties", (p) => rowOf(p, "plain").splice(6, 0, "FORGED")],
		["a forged key", (p) => (p.key = p.key.replace(rootB, join(base, "other")))],
		["a changed signature", (p) => (p.checks[0] as unknown[][])[9]?.splice(3, 1, 1)],
		["a row of the wrong length", (p) => (p.skills[0] as unknown[]).push("extra")],
		// Resolution decides these from the roots, the settings and the properties; a saved row cannot overrule it.
		["a disabled skill marked selected", (p) => setStatus(p, "off", "selected")],
		["a shadowed copy marked selected", (p) => setStatus(p, "shared", "selected", "shadowed")],
		["a trusted skill marked untrusted", (p) => setStatus(p, "only-b", "untrusted")],
		["model invocation against the properties", (p) => (rowOf(p, "plain")[7] = false)],
		["an id that is not the skill's name", (p) => (rowOf(p, "plain")[2] = "grant")],
		["a name that is neither its id nor its qualified name", (p) => (rowOf(p, "plain")[3] = "grant")],
		["a place that is not a count", (p) => (rowOf(p, "plain")[1] = "plain/SKILL.md")],
	];

	it.each(FORGERIES)("is passed over when it holds %s (the scan runs and is right)", async (_name, forge) => {
		const { cacheDir } = await forgedCache(forge);
		const warm = await discover(options(cacheDir));
		expect(described(warm)).toBe("A plain skill.");
		expectSame(warm, await discover(options()));
	});

	it("is passed over when a row lets a copy of a locked admin root's name stand beside it", async () => {
		const cacheDir = join(base, `cache-${caches++}`);
		const locked: DiscoverOptions = { ...options(cacheDir), roots: [rootA], adminRoots: [rootB], adminLocked: true };
		const cold = await discover(locked);
		expect(cold.report.rejected.map((r) => r.diagnostics.map((d) => d.code))).toContainEqual(["collision.locked"]);
		const file = resultFile(cacheDir);
		const payload = readResultPayload(file) as unknown as Payload;
		// The workspace copy of "shared" (rejected: the locked root holds the name) forged back in under its
		// qualified name, which every other rule lets stand.
		const winner = rowOf(payload, "shared");
		const at = ((payload.checks[0] as unknown[])[8] as string[]).indexOf("shared/SKILL.md");
		const copy = structuredClone(winner);
		copy.splice(0, 5, 0, at, "shared", "shared@workspace", null);
		payload.skills.unshift(copy);
		forgeResultPayload(file, payload as unknown as Record<string, unknown>);
		const warm = await discover(locked);
		expect(warm.index.get("shared@workspace")).toBeUndefined();
		expect(warm.index.skills).toStrictEqual(cold.index.skills);
	});

	it("is passed over when its two lines are one, its values are missing, or a third line follows", async () => {
		const layouts: [string, (head: string, values: string, file: string) => void][] = [
			["one line", (_head, _values, file) => forgePayload(file, readResultPayload(file))],
			["no values", (head, _values, file) => forgeText(file, head)],
			["no values after the line break", (head, _values, file) => forgeText(file, `${head}\n`)],
			["a third line", (head, values, file) => forgeText(file, `${head}\n${values}\n{}`)],
		];
		for (const [what, relayout] of layouts) {
			const { cacheDir, file } = await forgedCache();
			const text = readFileSync(file, "utf8");
			const [head, values] = text.slice(text.indexOf("\n") + 1).split("\n");
			relayout(head as string, values as string, file);
			expect(described(await discover(options(cacheDir))), what).toBe("A plain skill.");
		}
	});

	it("is passed over when cut short or changed without its digest", async () => {
		for (const damage of ["truncate", "flip"]) {
			const { cacheDir, file } = await forgedCache();
			const bytes = readFileSync(file);
			if (damage === "truncate") writeFileSync(file, bytes.subarray(0, bytes.length - 10));
			else writeFileSync(file, Buffer.from(bytes.toString("utf8").replace("FORGED", "FORGER")));
			expect(described(await discover(options(cacheDir)))).toBe("A plain skill.");
		}
	});

	it("is passed over when its group or everyone may write it, or another user owns it", async () => {
		const { cacheDir, file } = await forgedCache();
		chmodSync(file, 0o664);
		expect(described(await discover(options(cacheDir)))).toBe("A plain skill.");
		if (process.getuid?.() === 0) {
			const other = await forgedCache();
			chownSync(other.file, 65534, 65534);
			expect(described(await discover(options(other.cacheDir)))).toBe("A plain skill.");
		}
	});

	it("is passed over, and not rewritten, when its folder is a link, writable by others or another user's", async () => {
		for (const [what, attack] of folderAttacks()) {
			const { cacheDir, file } = await forgedCache();
			const forged = readFileSync(file);
			attack(join(cacheDir, "discovery-result"));
			expect(described(await discover(options(cacheDir))), what).toBe("A plain skill.");
			expect(readFileSync(file), what).toEqual(forged);
		}
	});

	it("costs only speed when it, or a root's index file, cannot be written (a folder in its place)", async () => {
		const cold = await discover(options());
		for (const kind of ["discovery-result", "discovery"]) {
			const { cacheDir } = await forgedCache();
			const folder = join(cacheDir, kind);
			for (const name of readdirSync(folder)) {
				rmSync(join(folder, name));
				mkdirSync(join(folder, name));
			}
			// Neither is used: the scan runs and is right (a root's index says why it was not used), and the failed
			// write leaves nothing behind.
			const warm = await discover(options(cacheDir));
			expect(warm.index.skills).toStrictEqual(cold.index.skills);
			const ignored = warm.report.diagnostics.filter((d) => d.code === "index.ignored");
			expect(ignored.length, kind).toBe(kind === "discovery" ? 2 : 0);
			expect(
				readdirSync(folder).filter((name) => name.endsWith(".tmp")),
				kind,
			).toEqual([]);
		}
	});

	it("is passed over when an entry changed no earlier than it was written (the racy-git rule)", async () => {
		const { cacheDir, file } = await forgedCache();
		utimesSync(file, new Date("2001-01-01"), new Date("2001-01-01"));
		expect(described(await discover(options(cacheDir)))).toBe("A plain skill.");
	});

	it("never stands in for activation: a forged body position changes nothing a model receives", async () => {
		const { cacheDir } = await forgedCache((payload) => {
			for (const row of payload.skills) {
				row[9] = 0;
				row[10] = 1;
			}
		});
		const warm = await discover(options(cacheDir));
		expect(described(warm)).toBe("FORGED");
		const activation = await createSession(warm.index, { tokenizer: estimateTokenizer }).activate("plain");
		if (!activation.ok) throw new Error(activation.message);
		expect(activation.body).toBe("# plain\n\nSteps.");
	});

	it("is passed over when a per-root index file it was saved with was rewritten since", async () => {
		const { cacheDir } = await forgedCache();
		const folder = join(cacheDir, "discovery");
		for (const name of readdirSync(folder)) utimesSync(join(folder, name), new Date(), new Date());
		expect(described(await discover(options(cacheDir)))).toBe("A plain skill.");
	});
});

/**
 * A root of its own made from `tree` (out of the racy window), with a cache folder of its own and the options that
 * scan only that root; discovered once, so that a saved result is there.
 */
async function savedRoot(name: string, tree: Record<string, string>) {
	const root = join(base, name);
	await writeTree(root, tree);
	await pastRacyWindow();
	const cacheDir = join(base, `cache-${caches++}`);
	const opts: DiscoverOptions = { ...options(cacheDir), roots: [root], disabled: [] };
	await discover(opts);
	return { root, cacheDir, opts };
}

describe("a warm run on a saved result sees every change", { timeout: 60_000 }, () => {
	it("an edit within the same second that keeps size and mtime, and a same-size file replacing SKILL.md", async () => {
		const { root, opts } = await savedRoot("edits", {
			"x/SKILL.md": skillMd("x", "Before."),
			"y/SKILL.md": skillMd("y", "First."),
		});
		expect((await discover(opts)).index.get("x")?.description).toBe("Before.");
		const x = join(root, "x", "SKILL.md");
		const stamp = new Date(Date.now() - 10_000);
		utimesSync(x, stamp, stamp);
		await discover(opts);
		// Same size, same mtime: only the ctime (and the content) differ.
		writeFileSync(x, skillMd("x", "After."));
		utimesSync(x, stamp, stamp);
		expect((await discover(opts)).index.get("x")?.description).toBe("After.");
		// Another file of the same size and mtime, renamed over it (a new inode).
		const y = join(root, "y", "SKILL.md");
		const other = join(root, "y", "next.tmp");
		writeFileSync(other, skillMd("y", "Other."));
		utimesSync(other, stamp, stamp);
		await pastRacyWindow();
		await discover(opts);
		renameSync(other, y);
		expect((await discover(opts)).index.get("y")?.description).toBe("Other.");
	});

	it("a SKILL.md swapped for a FIFO, with every check forged to the new stats, is not taken", async () => {
		// Someone who can write the cache can stat anything and sign what they write. A forged check that matches
		// only says the entry is as the forger saw it: a SKILL.md check must still be a regular file (and a folder
		// check a folder), or a skill would stand on a FIFO until its first read refused it.
		const { root, cacheDir, opts } = await savedRoot("fifo", {
			"f/SKILL.md": skillMd("f", "A file."),
			"r/SKILL.md": skillMd("r", "Regular."),
		});
		const file = resultFile(cacheDir);
		/** Re-signs every check of the saved result with what a stat of its path gives now. */
		const forgeChecks = () => {
			const payload = readResultPayload(file) as unknown as Payload;
			const checks = payload.checks[0] as unknown[];
			const signatures = checks[9] as number[];
			for (const [i, rel] of (checks[8] as string[]).entries()) {
				const info = statSync(rel === "" ? root : join(root, rel));
				signatures.splice(i * 5, 5, info.dev, info.ino, info.size, info.mtimeMs, info.ctimeMs);
			}
			forgeResultPayload(file, payload as unknown as Record<string, unknown>);
		};
		// The control: a regular file put in place, the checks re-signed: the forged result is believed (the saved
		// description, not the new one), so the forgery below fails only for what it points at.
		writeFileSync(join(root, "r", "SKILL.md"), skillMd("r", "Replaced."));
		await pastRacyWindow();
		forgeChecks();
		expect((await discover(opts)).index.get("r")?.description).toBe("Regular.");
		rmSync(join(root, "f", "SKILL.md"));
		execFileSync("mkfifo", [join(root, "f", "SKILL.md")]);
		await pastRacyWindow();
		forgeChecks();
		const warm = await discover(opts);
		expectSame(warm, await discover({ ...opts, cacheDir: undefined }));
		expect(warm.index.get("f")).toBeUndefined();
		expect(warm.index.get("r")?.description).toBe("Replaced.");
	});

	it("a skill folder swapped for a link between two runs", async () => {
		const { root, opts } = await savedRoot("swap", {
			"s/SKILL.md": skillMd("s", "Real folder."),
			"elsewhere/t/SKILL.md": skillMd("t", "T."),
		});
		await discover(opts);
		renameSync(join(root, "s"), join(base, "moved-s"));
		symlinkSync(join(root, "elsewhere", "t"), join(root, "s"));
		const warm = await discover(opts);
		expectSame(warm, await discover({ ...opts, cacheDir: undefined }));
		expect(warm.index.get("s")).toBeUndefined();
	});
});
