import { spawnSync } from "node:child_process";
import {
	copyFileSync,
	mkdirSync,
	readFileSync,
	renameSync,
	rmSync,
	symlinkSync,
	truncateSync,
	utimesSync,
	writeFileSync,
} from "node:fs";
import { join } from "node:path";
import {
	createDiscovery,
	createSession,
	type DiscoverOptions,
	type DiscoveryResult,
	discover,
	estimateTokenizer,
} from "skillset";
import { beforeAll, describe, expect, it } from "vitest";
import { pastRacyWindow } from "../helpers/racy.ts";
import { SHARED_DIR, skillMd, tempDir, writeTree } from "../helpers/temp.ts";
import { comparable, forgePayload, type IndexPayload, indexFiles, readPayload } from "./index-helpers.ts";

// Issue 23: the persistent index is a value read back. A warm run must give exactly what a cold one gives (down
// to null-prototype maps and diagnostics), and a forged index must be refused, never believed.
const CASES = JSON.parse(readFileSync(join(SHARED_DIR, "conformance", "skills-ref-cases.json"), "utf8")) as {
	id: string;
	dir_name: string;
	skill_md: string | null;
}[];

const TRICKY: Record<string, string | Uint8Array> = {
	"plain/SKILL.md": skillMd("plain", "A plain skill."),
	"rich/SKILL.md": skillMd(
		"rich",
		"Has every kind of field.",
		[
			"license: MIT",
			"compatibility: Needs git",
			"metadata:\n  version: 1.0\n  nested:\n    a: 1",
			"allowed-tools: Read Bash(git:*)",
			"when_to_use: When asked.",
			"disable-model-invocation: false",
			"depends_on: [plain]",
			"read_when:\n  - deploying",
			"permissions:\n  tools: [Read]\n  network: false\n  paths:\n    read: [docs]\n    write: []",
			"x-custom:\n  list: [1, two, null, true]\n  map: { k: v }\n  big: 12345678901234567890",
			"x-odd-numbers:\n  inf: .inf\n  nan: .nan\n  negzero: -0",
		].join("\n"),
	),
	"bad-perms/SKILL.md": skillMd("bad-perms", "Broken permissions.", "permissions:\n  paths:\n    write: [../up]"),
	"Mixed Case/SKILL.md": "---\nname: Mixed Case\ndescription: Declares a name with capitals: and a colon\n---\nBody\n",
	"crlf/SKILL.md": "---\r\nname: crlf\r\ndescription: Windows lines.\r\n---\r\nBody\r\n",
	"bom/SKILL.md": "\uFEFF---\nname: bom\ndescription: Starts with a BOM.\n---\nBody\n",
	"bad-utf8/SKILL.md": Buffer.concat([
		Buffer.from("---\nname: bad-utf8\ndescription: Has "),
		Buffer.from([0xff, 0xfe]),
		Buffer.from(" bytes.\n---\nx\n"),
	]),
	"binary/SKILL.md": Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0x00, 0x01]),
	"no-description/SKILL.md": "---\nname: no-description\n---\nBody\n",
	"unclosed/SKILL.md": "---\nname: unclosed\ndescription: never closed\n",
	"lower/skill.md": skillMd("lower", "A lower-case file name."),
	"outer/SKILL.md": skillMd("outer", "Has a nested skill."),
	"outer/inner/SKILL.md": skillMd("inner", "Nested."),
	"category/one/SKILL.md": skillMd("dup", "First of two."),
	"category/two/SKILL.md": skillMd("dup", "Second of two."),
	".hidden/secret/SKILL.md": skillMd("secret", "Hidden."),
	"empty-body/SKILL.md": "---\nname: empty-body\ndescription: No body.\n---\n",
};

let base: string;
let rich: string;
let linked: string;

beforeAll(async () => {
	base = await tempDir();
	rich = join(base, "rich-root");
	await writeTree(rich, TRICKY);
	for (const [i, item] of CASES.entries()) {
		if (typeof item.skill_md !== "string") continue;
		await writeTree(rich, { [`conformance/${String(i).padStart(2, "0")}/${item.dir_name}/SKILL.md`]: item.skill_md });
	}
	linked = join(base, "linked-root");
	mkdirSync(join(linked, "linked"), { recursive: true });
	symlinkSync(join(rich, "plain", "SKILL.md"), join(linked, "linked", "SKILL.md"));
	await writeTree(linked, { "real/SKILL.md": skillMd("real", "A real file beside a linked one.") });
	await writeTree(join(base, "a"), { "one/SKILL.md": skillMd("one", "Root A's skill.") });
	await writeTree(join(base, "b"), { "two/SKILL.md": skillMd("two", "Root B's skill.") });
	await pastRacyWindow();
}, 60_000);

let caches = 0;
function freshCache(): string {
	return join(base, `cache-${caches++}`);
}

function optionsFor(roots: string[], cacheDir?: string): DiscoverOptions {
	return { cwd: base, home: join(base, "no-home"), defaultRoots: false, roots, ...(cacheDir ? { cacheDir } : {}) };
}

function expectSame(warm: DiscoveryResult, cold: DiscoveryResult): void {
	expect(warm.index.skills).toStrictEqual(cold.index.skills);
	expect(comparable(warm.report)).toStrictEqual(comparable(cold.report));
}

const codes = (result: DiscoveryResult) => result.report.diagnostics.map((d) => d.code);

describe("discover with a cacheDir", { timeout: 60_000 }, () => {
	it("gives exactly the cold result warm, down to prototypes and diagnostics, on tricky skills", async () => {
		const cacheDir = freshCache();
		const roots = [rich, linked];
		const uncached = await discover(optionsFor(roots));
		const cold = await discover(optionsFor(roots, cacheDir));
		expectSame(cold, uncached);
		const warm = await discover(optionsFor(roots, cacheDir));
		expectSame(warm, uncached);
		// Every SKILL.md read came from the index, except the one whose values JSON cannot hold (.inf, .nan, -0);
		// the linked SKILL.md is refused by the walk, before any read.
		const refused = cold.report.rejected.filter((r) => r.diagnostics.some((d) => d.code === "entry.symlink"));
		expect(refused).toHaveLength(1);
		expect(warm.report.reused.files).toBe(cold.report.counts.candidates - refused.length - 1);
		// The walk of the root without links was kept whole; the other root's walk ran again on kept listings.
		const payloads = indexFiles(cacheDir).map(readPayload);
		expect(payloads.find((payload) => payload.key.includes("rich-root"))?.walk).not.toBeNull();
		expect(payloads.find((payload) => payload.key.includes("linked-root"))?.walk).toBeNull();
		expect(uncached.index.get("rich")?.properties.extra["x-odd-numbers"]).toStrictEqual(
			Object.assign(Object.create(null), { inf: Number.POSITIVE_INFINITY, nan: Number.NaN, negzero: -0 }),
		);
	});

	it("sees what changes under a kept walk: a nested skill, a new skill, a removed one, a renamed file", async () => {
		const cacheDir = freshCache();
		const root = join(base, "changing");
		await writeTree(root, {
			"outer/SKILL.md": skillMd("outer", "Has a notes folder."),
			"outer/notes/todo.txt": "later\n",
			"group/first/SKILL.md": skillMd("first", "First."),
			"group/second/SKILL.md": skillMd("second", "Second."),
			"third/SKILL.md": skillMd("third", "Third."),
		});
		await pastRacyWindow();
		await discover(optionsFor([root], cacheDir));
		expect((await discover(optionsFor([root], cacheDir))).report.reused).toEqual({ dirs: 6, files: 4 });
		// A SKILL.md in a folder the walk only looked into (no listing covers it).
		await writeTree(root, { "outer/notes/SKILL.md": skillMd("notes", "Nested.") });
		const nested = await discover(optionsFor([root], cacheDir));
		expectSame(nested, await discover(optionsFor([root])));
		expect(codes(nested)).toContain("entry.nested");
		await writeTree(root, { "group/fourth/SKILL.md": skillMd("fourth", "Fourth.") });
		rmSync(join(root, "group", "second"), { recursive: true });
		renameSync(join(root, "third", "SKILL.md"), join(root, "third", "skill.md"));
		const warm = await discover(optionsFor([root], cacheDir));
		expectSame(warm, await discover(optionsFor([root])));
		expect(warm.index.names()).toEqual(["first", "fourth", "outer", "third"]);
		expect(warm.index.get("third")?.diagnostics.map((d) => d.code)).toContain("entry.case");
	});

	it("gives exactly the cold result warm on the real corpus", async () => {
		const corpus = join(SHARED_DIR, "corpus");
		const roots = [join(corpus, "anthropic-skills"), join(corpus, "openai-skills", "skills")];
		const cacheDir = freshCache();
		const uncached = await discover({ ...optionsFor(roots), includeHidden: true });
		await discover({ ...optionsFor(roots, cacheDir), includeHidden: true });
		expect(indexFiles(cacheDir)).toHaveLength(2);
		expectSame(await discover({ ...optionsFor(roots, cacheDir), includeHidden: true }), uncached);
	});

	it("keeps one file per root, and a root's file never serves another root", async () => {
		const cacheDir = freshCache();
		const roots = [join(base, "a"), join(base, "b")];
		const cold = await discover(optionsFor(roots, cacheDir));
		const [first, second] = indexFiles(cacheDir);
		if (!first || !second) throw new Error("expected two index files");
		const a = readPayload(first).key.includes(join(base, "a")) ? first : second;
		const b = a === first ? second : first;
		copyFileSync(a, b);
		const warm = await discover(optionsFor(roots, cacheDir));
		expect(warm.report.diagnostics).toMatchObject([{ code: "index.ignored", file: b }]);
		expect(warm.report.diagnostics[0]?.message).toContain("written for another root");
		expect(warm.report.reused.files).toBe(1);
		expect(warm.index.skills).toStrictEqual(cold.index.skills);
	});

	it("does not trust entries that changed no earlier than the index was written", async () => {
		const cacheDir = freshCache();
		const cold = await discover(optionsFor([rich], cacheDir));
		const [file] = indexFiles(cacheDir);
		if (!file) throw new Error("no index");
		utimesSync(file, new Date("2001-01-01"), new Date("2001-01-01"));
		const warm = await discover(optionsFor([rich], cacheDir));
		expect(warm.report.reused).toEqual({ dirs: 0, files: 0 });
		expectSame(warm, cold);
		expect((await discover(optionsFor([rich], cacheDir))).report.reused.files).toBeGreaterThan(0);
	});

	it("never blocks on a FIFO, and never reads a file over the size cap", async () => {
		for (const plant of ["fifo", "huge"]) {
			const cacheDir = freshCache();
			const cold = await discover(optionsFor([join(base, "a")], cacheDir));
			const [file] = indexFiles(cacheDir);
			if (!file) throw new Error("no index");
			rmSync(file);
			if (plant === "fifo") expect(spawnSync("mkfifo", ["-m", "600", file]).status).toBe(0);
			else {
				writeFileSync(file, "", { mode: 0o600 });
				truncateSync(file, 129 * 1024 * 1024);
			}
			const warm = await discover(optionsFor([join(base, "a")], cacheDir));
			expect(warm.report.diagnostics).toMatchObject([{ code: "index.ignored", file }]);
			expect(warm.report.diagnostics[0]?.message).toMatch(plant === "fifo" ? /not a regular file/ : /the cap is/);
			expect(warm.index.skills).toStrictEqual(cold.index.skills);
		}
	});

	it("makes activation read and parse SKILL.md itself: a forged body position changes nothing", async () => {
		const cacheDir = freshCache();
		await discover(optionsFor([join(base, "a")], cacheDir));
		const [file] = indexFiles(cacheDir);
		if (!file) throw new Error("no index");
		const payload = readPayload(file);
		for (const row of payload.files) {
			row[6] = 0;
			row[7] = 1;
		}
		forgePayload(file, payload);
		const warm = await discover(optionsFor([join(base, "a")], cacheDir));
		expect(warm.report.reused.files).toBe(1);
		const activation = await createSession(warm.index, { tokenizer: estimateTokenizer }).activate("one");
		if (!activation.ok) throw new Error(activation.message);
		expect(activation.body).toBe("# one\n\nSteps.");
	});

	it("is used by createDiscovery for its first scan, and kept up to date by its rescans", async () => {
		const cacheDir = freshCache();
		const root = join(base, "watched");
		await writeTree(root, { "x/SKILL.md": skillMd("x", "Before.") });
		await pastRacyWindow();
		await discover(optionsFor([root], cacheDir));
		const discovery = createDiscovery(optionsFor([root], cacheDir));
		expect((await discovery.scan()).report.reused.files).toBe(1);
		await writeTree(root, { "y/SKILL.md": skillMd("y", "New.") });
		await pastRacyWindow();
		expect((await discovery.scan()).index.names()).toEqual(["x", "y"]);
		await discovery.scan();
		const next = await discover(optionsFor([root], cacheDir));
		expect(next.report.reused.files).toBe(2);
		expect(next.index.get("y")?.description).toBe("New.");
	});
});

type Forgery = (payload: IndexPayload) => void;
const firstFile = (payload: IndexPayload) => payload.files[0] as unknown[];
const withProperties = (payload: IndexPayload) =>
	payload.files.find((row) => row[8] !== null) as unknown[] & { 8: Record<string, unknown> };
const withDiagnostic = (payload: IndexPayload) =>
	payload.files.find((row) => (row[9] as unknown[]).length > 0) as unknown[] & { 9: unknown[][] };

const kept = (payload: IndexPayload) => payload.walk as unknown[];
const keptSkills = (payload: IndexPayload) => kept(payload)[7] as unknown[];

const FORGERIES: [string, Forgery][] = [
	["a folder outside the root", (p) => (p.dirs[0] as unknown[]).splice(0, 1, "../outside")],
	["a SKILL.md outside the root", (p) => firstFile(p).splice(0, 1, "../../elsewhere/SKILL.md")],
	["a file that is not a SKILL.md", (p) => firstFile(p).splice(0, 1, "plain/notes.txt")],
	["an absolute path", (p) => firstFile(p).splice(0, 1, "/etc/SKILL.md")],
	["a listing entry that climbs", (p) => (p.dirs[0] as unknown[]).splice(6, 1, "d..")],
	["a listing out of name order", (p) => (p.dirs[0] as unknown[]).splice(6, 1, "dzeta/dalpha")],
	["a diagnostic code nobody knows", (p) => ((withDiagnostic(p)[9][0] as unknown[])[0] = "grant.all")],
	[
		"a diagnostic with another severity",
		(p) => {
			const row = withDiagnostic(p)[9][0] as unknown[];
			row[1] = row[1] === "error" ? "warning" : "error";
		},
	],
	["a property nobody knows", (p) => (withProperties(p)[8].grant = "everything")],
	["a __proto__ key", (p) => (withProperties(p)[8].extra = JSON.parse('{"__proto__": {"polluted": true}}'))],
	["a name that is not text", (p) => (withProperties(p)[8].name = 42)],
	[
		"a manifest with more keys",
		(p) => (withProperties(p)[8].manifest = { tools: [], network: true, paths: { read: [], write: [] }, exec: true }),
	],
	["a body placed past the end", (p) => firstFile(p).splice(6, 1, 1e9)],
	["an inode that is not a count", (p) => firstFile(p).splice(2, 1, "7")],
	["another format", (p) => (p.format = 2)],
	["another root's key", (p) => (p.key = p.key.replace("rich-root", "other-root"))],
	["a row of the wrong length", (p) => firstFile(p).push("extra")],
	["a kept walk with a skill folder that climbs", (p) => ((keptSkills(p)[0] as unknown[])[0] = "../x")],
	["a kept walk with a file that is not a skill file", (p) => ((keptSkills(p)[0] as unknown[])[1] = "README.md")],
	[
		"a kept walk with a diagnostic it cannot have",
		(p) => (kept(p)[6] as unknown[]).push(["collision.locked", "x", ""]),
	],
	["a kept walk whose root resolves through ..", (p) => (kept(p)[0] = "/tmp/../etc")],
	["a kept walk probing its root", (p) => (kept(p)[8] as unknown[]).push(["", 1, 1, 1, 1, 1])],
	["a kept walk with a count that is not one", (p) => (kept(p)[1] = -1)],
	["a kept walk without its root folder", (p) => p.dirs.splice(0, p.dirs.length)],
];

describe("a forged index (valid digest, owner and mode)", { timeout: 60_000 }, () => {
	it.each(FORGERIES)("is refused whole when it holds %s", async (_name, forge) => {
		const cacheDir = freshCache();
		const cold = await discover(optionsFor([rich], cacheDir));
		const [file] = indexFiles(cacheDir);
		if (!file) throw new Error("no index");
		const payload = readPayload(file);
		forge(payload);
		forgePayload(file, payload);
		const warm = await discover(optionsFor([rich], cacheDir));
		expect(warm.report.diagnostics[0]).toMatchObject({ code: "index.ignored", file });
		expect(codes(warm).slice(1)).toEqual(codes(cold));
		expect(warm.report.reused).toEqual({ dirs: 0, files: 0 });
		expect(warm.index.skills).toStrictEqual(cold.index.skills);
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
	});
});
