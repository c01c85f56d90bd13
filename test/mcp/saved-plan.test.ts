import { spawnSync } from "node:child_process";
import {
	chmodSync,
	chownSync,
	linkSync,
	readdirSync,
	readFileSync,
	realpathSync,
	renameSync,
	rmSync,
	statSync,
	symlinkSync,
	truncateSync,
	utimesSync,
	writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { createSkillServer, type SkillServerOptions } from "skillset/mcp";
import { beforeAll, describe, expect, it } from "vitest";
import { writeDerived } from "../../src/discovery/derived-cache.ts";
import { pastRacyWindow } from "../helpers/racy.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";
import { BIN } from "./mcp-helpers.ts";
import {
	attackFiles,
	expectRefused,
	type FirstUse,
	firstUse,
	rootOptions,
	SECRET,
	warmStartups,
} from "./warm-attacks.ts";

// Issue 23: a warm `mcp` start-up whose discovery read its saved result back whole takes the plan saved with that
// result (which skills are served, which left out and why) instead of walking every served skill. The saved result
// vouches for every skill folder's own entries and every SKILL.md; what lies in a skill's subfolders is caught at
// first use, which looks at the files itself. Every attack comes after a warm run, as an attacker would time it.

const CAP = 8 * 1024 * 1024;
const ATTACKS = ["passwd", "fifo", "hard-link", "large", "swap", "added", "edited", "forged"] as const;
type Attack = (typeof ATTACKS)[number];

/** A saved plan as the cache holds it: its rows, and the served skills' frontmatter (JSON texts, in row order). */
interface Saved {
	value: { served: number[]; leftOut: [number, string, string][]; recheck: number[]; written: string };
	texts: string[];
	/** Which write the frontmatter says it belongs to. */
	textsWritten: string;
}

/** The served row whose frontmatter names `name`. */
function servedAt(saved: Saved, name: string): number {
	return saved.texts.findIndex((text) => JSON.parse(text).name === name);
}

// Rows with a valid digest (written as the cache writes them) that no plan of this index can hold.
const ROWS: [string, (saved: Saved) => void][] = [
	["a position out of range", ({ value }) => (value.served[0] = 1_000)],
	["a negative position", ({ value }) => (value.served[0] = -1)],
	["a fractional position", ({ value }) => (value.served[0] = 0.5)],
	["a position twice", ({ value }) => (value.served[1] = value.served[0] as number)],
	[
		"a skill in no row",
		({ value, texts }) => {
			value.served.pop();
			texts.pop();
		},
	],
	["an unknown code", ({ value }) => ((value.leftOut[0] as unknown[])[1] = "mcp.fine")],
	["a code a saved row never has", ({ value }) => ((value.leftOut[0] as unknown[])[1] = "mcp.link")],
	["frontmatter missing for a served row", ({ texts }) => texts.pop()],
	[
		"frontmatter of another write",
		(saved) => {
			const at = servedAt(saved, "bystander");
			saved.texts[at] = JSON.stringify({ ...JSON.parse(saved.texts[at] as string), description: "Forged." });
			saved.value.written = "another";
		},
	],
	...["by/stander", "..", "by\0stander", "other"].map((forged): [string, (saved: Saved) => void] => [
		`a frontmatter name ${JSON.stringify(forged)}`,
		(saved) => {
			const at = servedAt(saved, "bystander");
			saved.texts[at] = JSON.stringify({ ...JSON.parse(saved.texts[at] as string), name: forged });
		},
	]),
	["a frontmatter that is not an object", ({ texts }) => (texts[0] = "[1]")],
	["a frontmatter that does not parse", ({ texts }) => (texts[0] = "{")],
	[
		"a description over the limit",
		(saved) => {
			const at = servedAt(saved, "bystander");
			saved.texts[at] = JSON.stringify({ ...JSON.parse(saved.texts[at] as string), description: "x".repeat(1025) });
		},
	],
];

/** The tree of a forged-row test. */
function rowTree(what: string): string {
	return `row-${what.replace(/\W+/g, "-")}`;
}

let base: string;
/** One tree per test (each attack changes its own, within the racy margin of the next test's runs). */
const TREES = [...ATTACKS, "plain", "rule", "control", "owner", "writable", "digest", "tail", "cli-row", "fixed"];
const treeFiles = attackFiles(ATTACKS, {
	// Left out for what its SKILL.md says: a verdict the saved plan keeps.
	"bad-field/SKILL.md": skillMd("bad-field", "Has an empty compatibility.", 'compatibility: ""'),
});

beforeAll(async () => {
	base = realpathSync(await tempDir());
	for (const tree of [...TREES, ...ROWS.map(([what]) => rowTree(what))])
		await writeTree(join(base, "trees", tree), treeFiles);
	writeFileSync(join(base, "outside.md"), `# Outside ${SECRET}\n`);
	// Left out for what its subfolder holds (a link), which the saved result does not vouch for.
	symlinkSync("/etc/passwd", join(rootOf("fixed"), "passwd", "references", "passwd.md"));
	await pastRacyWindow();
}, 30_000);

/** The tree of the test `name`. */
function rootOf(name: string): string {
	return join(base, "trees", name);
}

function optionsFor(name: string, cacheDir?: string, more: Partial<SkillServerOptions> = {}): SkillServerOptions {
	return rootOptions(base, rootOf(name), cacheDir, more);
}

/** Two start-ups with the cache on: the second finds the saved result and saves (or takes) the plan. */
async function warmRuns(name: string): Promise<string> {
	const cacheDir = join(base, `cache-${name}`);
	await warmStartups(optionsFor(name, cacheDir));
	return cacheDir;
}

/** The folder of a saved plan's `kind` in `cacheDir`. */
function planFolder(cacheDir: string, kind = "mcp-plan"): string {
	return join(cacheDir, kind);
}

/** The one saved plan in `cacheDir`: its file, key, rows and frontmatter. */
function savedPlan(cacheDir: string): Saved & { file: string; key: string } {
	const read = (kind: string) => {
		const names = readdirSync(planFolder(cacheDir, kind));
		expect(names).toHaveLength(1);
		const file = join(planFolder(cacheDir, kind), names[0] as string);
		const text = readFileSync(file, "utf8");
		return { file, ...(JSON.parse(text.slice(text.indexOf("\n") + 1)) as { key: string; value: unknown }) };
	};
	const rows = read("mcp-plan");
	const texts = read("mcp-plan-frontmatter");
	expect(texts.key).toBe(rows.key);
	const kept = texts.value as { written: string; texts: string[] };
	expect(kept.written).toBe((rows.value as { written: string }).written);
	const value = rows.value as Saved["value"];
	return { file: rows.file, key: rows.key, value, texts: kept.texts, textsWritten: kept.written };
}

/** Writes `saved` as the cache writes a plan (a valid digest, our file). */
function writePlan(cacheDir: string, key: string, saved: Saved): void {
	writeDerived(cacheDir, "mcp-plan-frontmatter", key, { written: saved.textsWritten, texts: saved.texts });
	writeDerived(cacheDir, "mcp-plan", key, saved.value);
}

/** What a warm (or, without `cacheDir`, cold) server of `tree` answers about `attack` at its first use. */
function firstUseOf(tree: string, attack: string, cacheDir: string | undefined, file: string): Promise<FirstUse> {
	return firstUse(optionsFor(tree, cacheDir), attack, file);
}

/** `skillset mcp --check --json` through the built CLI, with `args` added: its left-out skills. */
function cliCheck(
	tree: string,
	cacheDir: string,
	args: string[] = [],
): { name: string; code: string; message: string }[] {
	const root = rootOf(tree);
	const run = spawnSync(
		process.execPath,
		[BIN, "mcp", root, "--no-default-roots", "--root", root, "--check", "--json", ...args],
		{ cwd: base, env: { PATH: process.env.PATH ?? "", HOME: base, SKILLSET_CACHE_DIR: cacheDir }, encoding: "utf8" },
	);
	expect([0, 1], run.stderr).toContain(run.status);
	return (JSON.parse(run.stdout) as { leftOut: { name: string; code: string; message: string }[] }).leftOut;
}

describe("a warm start-up that takes the saved plan", () => {
	it("saves a plan beside the saved result and serves from it what a cold start-up serves", async () => {
		const cacheDir = await warmRuns("plain");
		const { value, texts } = savedPlan(cacheDir);
		expect(value.served).toHaveLength(ATTACKS.length + 1);
		expect(texts.map((text) => JSON.parse(text).name)).toContain("bystander");
		const cold = await createSkillServer(optionsFor("plain"));
		const warm = await createSkillServer(optionsFor("plain", cacheDir));
		try {
			expect(warm.served).toEqual(cold.served);
			expect(warm.leftOut).toEqual(cold.leftOut);
			expect(warm.leftOut).toContainEqual(expect.objectContaining({ name: "bad-field", code: "mcp.field-invalid" }));
		} finally {
			await cold.close();
			await warm.close();
		}
	});

	// Planted below a served skill's subfolder: the saved result does not cover it, so start-up still names the skill
	// (the documented window) and every use refuses it.
	const below: [Attack, string, string, (dir: string) => void][] = [
		[
			"passwd",
			"references/passwd.md",
			"mcp.link",
			(dir) => symlinkSync("/etc/passwd", join(dir, "references/passwd.md")),
		],
		[
			"fifo",
			"references/pipe.md",
			"mcp.link",
			(dir) => expect(spawnSync("mkfifo", [join(dir, "references/pipe.md")]).status).toBe(0),
		],
		[
			"hard-link",
			"references/outside.md",
			"mcp.link",
			(dir) => linkSync(join(base, "outside.md"), join(dir, "references/outside.md")),
		],
		[
			"large",
			"references/big.md",
			"mcp.too-large",
			(dir) => {
				writeFileSync(join(dir, "references/big.md"), SECRET);
				truncateSync(join(dir, "references/big.md"), CAP + 1);
			},
		],
	];
	for (const [attack, file, code, act] of below) {
		it(`refuses at first use what is planted in a served skill's subfolder: ${attack}`, async () => {
			const cacheDir = await warmRuns(attack);
			act(join(rootOf(attack), attack));
			const use = await firstUseOf(attack, attack, cacheDir, file);
			expect(use.served).toBe(true);
			expectRefused(use, attack);
			expect(cliCheck(attack, cacheDir, ["--no-cache"])).toContainEqual(
				expect.objectContaining({ name: attack, code }),
			);
		}, 60_000);
	}

	// What the skill folder itself or its SKILL.md shows voids the saved result, and the plan with it.
	const visible: [Attack, string, (dir: string) => void][] = [
		[
			"swap",
			"references/guide.md",
			(dir) => {
				renameSync(join(dir, "references"), join(base, "swap-references"));
				symlinkSync(join(base, "swap-references"), join(dir, "references"));
			},
		],
		["added", "secret.md", (dir) => symlinkSync("/etc/passwd", join(dir, "secret.md"))],
	];
	for (const [attack, file, act] of visible) {
		it(`leaves out at start-up a skill whose folder shows the attack: ${attack}`, async () => {
			const cacheDir = await warmRuns(attack);
			act(join(rootOf(attack), attack));
			const use = await firstUseOf(attack, attack, cacheDir, file);
			expect(use.served).toBe(false);
			expectRefused(use, attack);
		}, 60_000);
	}

	it("plans again on every run a skill left out for what its subfolder holds: fixed, it is served", async () => {
		const cacheDir = await warmRuns("fixed");
		expect(savedPlan(cacheDir).value.recheck).toHaveLength(1);
		const before = await createSkillServer(optionsFor("fixed", cacheDir));
		await before.close();
		expect(before.leftOut).toContainEqual(expect.objectContaining({ name: "passwd", code: "mcp.link" }));
		rmSync(join(rootOf("fixed"), "passwd", "references", "passwd.md"));
		const after = await createSkillServer(optionsFor("fixed", cacheDir));
		await after.close();
		expect(after.served.map((skill) => skill.name)).toContain("passwd");
	}, 60_000);

	it("plans afresh when SKILL.md is edited in place to an invalid name with its size and times put back", async () => {
		const cacheDir = await warmRuns("edited");
		const file = join(rootOf("edited"), "edited", "SKILL.md");
		const before = statSync(file);
		const text = readFileSync(file, "utf8");
		writeFileSync(file, text.replace("name: edited", "name: Edited"));
		utimesSync(file, before.atime, before.mtime);
		expect(statSync(file).size).toBe(before.size);
		const server = await createSkillServer(optionsFor("edited", cacheDir));
		const cold = await createSkillServer(optionsFor("edited"));
		try {
			expect(server.served.map((skill) => skill.name)).not.toContain("edited");
			expect(server.leftOut).toEqual(cold.leftOut);
		} finally {
			await server.close();
			await cold.close();
			writeFileSync(file, text);
		}
	}, 60_000);

	it("plans afresh under a changed rule (the read cap), and takes the first plan back after", async () => {
		const cacheDir = await warmRuns("rule");
		const plans = async (more: Partial<SkillServerOptions>) => {
			const server = await createSkillServer(optionsFor("rule", cacheDir, more));
			await server.close();
			return server.leftOut;
		};
		const cold = await createSkillServer(optionsFor("rule"));
		await cold.close();
		expect(await plans({ maxResourceBytes: 16 })).toContainEqual(
			expect.objectContaining({ name: "bystander", code: "mcp.too-large" }),
		);
		expect(await plans({})).toEqual(cold.leftOut);
		expect(readdirSync(planFolder(cacheDir))).toHaveLength(2);
	}, 60_000);
});

describe("a saved plan that cannot be trusted is refused and the plan made fresh", () => {
	/** Saves a plan that leaves the bystander out (what a trusted forgery would show) and applies `spoil`. */
	async function forgedThen(name: string, spoil: (file: string) => void): Promise<FirstUse> {
		const cacheDir = await warmRuns(name);
		const { file, key, ...saved } = savedPlan(cacheDir);
		const at = servedAt(saved, "bystander");
		saved.value.leftOut.push([saved.value.served[at] as number, "mcp.field-invalid", "forged"]);
		saved.value.served.splice(at, 1);
		saved.texts.splice(at, 1);
		writePlan(cacheDir, key, saved);
		spoil(file);
		return firstUseOf(name, "forged", cacheDir, "notes.md");
	}

	it("takes a well-formed plan in a file of ours (what the forgeries below would show if trusted)", async () => {
		const use = await forgedThen("control", () => undefined);
		expect(use.listed).not.toContain("skill://bystander/SKILL.md");
	}, 60_000);

	it("a plan of another owner", async () => {
		const use = await forgedThen("owner", (file) => chownSync(file, 65534, 65534));
		expect(use.listed).toContain("skill://bystander/SKILL.md");
	}, 60_000);

	it("a world-writable plan", async () => {
		const use = await forgedThen("writable", (file) => chmodSync(file, 0o666));
		expect(use.listed).toContain("skill://bystander/SKILL.md");
	}, 60_000);

	it("a plan whose content does not match its digest", async () => {
		const use = await forgedThen("digest", (file) => {
			const text = readFileSync(file, "utf8");
			writeFileSync(file, text.replace('"forged"', '"FORGED"'));
		});
		expect(use.listed).toContain("skill://bystander/SKILL.md");
	}, 60_000);

	it("a plan with text after its value, under a valid digest (only a catalog keeps a text there)", async () => {
		const cacheDir = await warmRuns("tail");
		const { key, ...saved } = savedPlan(cacheDir);
		const at = servedAt(saved, "bystander");
		saved.value.leftOut.push([saved.value.served[at] as number, "mcp.field-invalid", "forged"]);
		saved.value.served.splice(at, 1);
		saved.texts.splice(at, 1);
		writeDerived(cacheDir, "mcp-plan-frontmatter", key, { written: saved.textsWritten, texts: saved.texts }, "{}");
		writeDerived(cacheDir, "mcp-plan", key, saved.value, "{}");
		const use = await firstUseOf("tail", "forged", cacheDir, "notes.md");
		expect(use.listed).toContain("skill://bystander/SKILL.md");
	}, 60_000);

	it("a `--check` through the built CLI refuses a forged row as a server does", async () => {
		const cacheDir = join(base, "cache-cli-row");
		const cold = cliCheck("cli-row", cacheDir, ["--no-cache"]);
		for (let i = 0; i < 2; i++) expect(cliCheck("cli-row", cacheDir)).toEqual(cold);
		const { key, ...saved } = savedPlan(cacheDir);
		saved.value.leftOut.push([saved.value.served.pop() as number, "mcp.name-mismatch", "forged"]);
		saved.texts.pop();
		writePlan(cacheDir, key, saved);
		// The control: a well-formed forgery is taken (the plan file is what the report follows).
		expect(cliCheck("cli-row", cacheDir)).toContainEqual(expect.objectContaining({ message: "forged" }));
		saved.value.leftOut[saved.value.leftOut.length - 1] = [1_000, "mcp.name-mismatch", "forged"];
		writePlan(cacheDir, key, saved);
		expect(cliCheck("cli-row", cacheDir)).toEqual(cold);
	}, 60_000);

	for (const [what, forge] of ROWS) {
		it(`a plan with ${what}`, async () => {
			const cacheDir = await warmRuns(rowTree(what));
			const { key, ...saved } = savedPlan(cacheDir);
			forge(saved);
			writePlan(cacheDir, key, saved);
			const use = await firstUseOf(rowTree(what), "bystander", cacheDir, "SKILL.md");
			const cold = await firstUseOf(rowTree(what), "bystander", undefined, "SKILL.md");
			expect(use.listed).toEqual(cold.listed);
			expect(use.names).toEqual(cold.names);
			expect(use.descriptions).toEqual(cold.descriptions);
			expect(use.names).toContain("bystander");
		}, 60_000);
	}
});
