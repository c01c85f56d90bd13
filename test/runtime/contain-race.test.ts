// Issue 8 §1: contained reads under a race. A small C program swaps two paths with renameat2(RENAME_EXCHANGE) in a
// tight loop while the reader runs; no read may ever return the secret, whatever the timing.
import { execFileSync } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
	createSession,
	discover,
	estimateTokenizer,
	listContained,
	readContained,
	readContainedAsync,
	type SkillIndex,
} from "skillset";
import { beforeAll, describe, expect, it } from "vitest";
import { HeldRoots } from "../../src/runtime/index.ts";
import { buildSwapper, startSwapper } from "../helpers/swapper.ts";
import { tempDir, writeTree } from "../helpers/temp.ts";

const SECRET = "root:x:0:0:SECRET-PASSWD-LINE";
const GUIDE = "# Guide: the real file\n";
const READS_PER_CASE = 17_000; // three cases: 51,000 reads in all

type Tree = { parent: string; skill: string; decoy: string; index: SkillIndex };

let base: string;
let swapper: string | undefined;

beforeAll(async () => {
	base = await tempDir();
	swapper = await buildSwapper(base);
});

/** Builds `<case>/parent/skill` and a decoy tree with the secret where every swapped link points. */
async function layout(name: string): Promise<Tree> {
	const root = join(base, name);
	const secretSkill = `---\nname: skill\ndescription: d\n---\n${SECRET}\n`;
	await writeTree(root, {
		"parent/skill/SKILL.md": "---\nname: skill\ndescription: d\n---\nbody\n",
		"parent/skill/references/guide.md": GUIDE,
		// The decoy mirrors the skill's layout at every level, each file holding the secret.
		"decoy/guide.md": SECRET,
		"decoy/passwd": SECRET,
		"decoy/references/guide.md": SECRET,
		"decoy/references/passwd": SECRET,
		"decoy/skill/references/guide.md": SECRET,
		"decoy/skill/references/passwd": SECRET,
		"decoy/SKILL.md": secretSkill,
		"decoy/skill/SKILL.md": secretSkill,
	});
	const parent = join(root, "parent");
	const { index } = await discover({ cwd: root, home: root, defaultRoots: false, roots: [parent] });
	return { parent, skill: join(parent, "skill"), decoy: join(root, "decoy"), index };
}

/**
 * Reads `references/guide.md` directly and through a session (tier 3), lists `references/` and activates the skill
 * (tier 2) while `a` and `b` are exchanged in a loop.
 */
async function race(tree: Tree, a: string, b: string) {
	const { skill, index } = tree;
	const session = createSession(index, { tokenizer: estimateTokenizer });
	const swap = startSwapper(swapper as string, a, b);
	await new Promise((resolve) => setTimeout(resolve, 20));
	const tally = {
		served: 0,
		refused: 0,
		leaked: 0,
		listed: 0,
		listLeaked: 0,
		sessionServed: 0,
		activated: 0,
		chunkedServed: 0,
		heldServed: 0,
	};
	// A server's held skill folders (issue 23): a folder held while it is swapped must never serve the decoy.
	const roots = new HeldRoots(4);
	for (let i = 0; i < READS_PER_CASE; i++) {
		const read = readContained(skill, "references/guide.md");
		if (read.ok) {
			tally.served++;
			const text = new TextDecoder().decode(read.bytes);
			if (text !== GUIDE) tally.leaked++;
		} else tally.refused++;
		if (i % 4 === 0) {
			// The chunked read off the event loop, as the MCP server serves large files.
			const chunked = await readContainedAsync(skill, "references/guide.md", { chunkBytes: 4 });
			if (chunked.ok) tally.chunkedServed++;
			if (chunked.ok && new TextDecoder().decode(chunked.bytes) !== GUIDE) tally.leaked++;
		}
		if (i % 4 === 1) {
			const held = await readContainedAsync(skill, "references/guide.md", { roots });
			if (held.ok) tally.heldServed++;
			if (held.ok && new TextDecoder().decode(held.bytes) !== GUIDE) tally.leaked++;
		}
		if (i % 16 === 0) {
			const listed = listContained(skill, "references");
			if (listed.ok) {
				tally.listed++;
				if (listed.entries.some((entry) => entry.name === "passwd")) tally.listLeaked++;
			}
		}
		if (i % 8 === 0) {
			const page = await session.readResource("skill", "references/guide.md");
			if (page.ok) tally.sessionServed++;
			if (page.ok && page.content !== GUIDE.trimEnd()) tally.leaked++;
		}
		if (i % 32 === 0) {
			const activation = await createSession(index, { tokenizer: estimateTokenizer }).activate("skill");
			if (activation.ok) tally.activated++;
			if (activation.ok && activation.body !== "body") tally.leaked++;
		}
	}
	swap.child.kill("SIGTERM");
	roots.close();
	return { ...tally, swaps: await swap.done };
}

describe("readContained under a renameat2(RENAME_EXCHANGE) race", () => {
	// What is swapped, and the decoy folder its link points at: what a leak would serve at that level.
	const cases: [string, (t: Tree) => [string, string]][] = [
		["a folder of the skill", (t) => [join(t.skill, "references"), join(t.decoy, "references")]],
		["the skill folder itself", (t) => [t.skill, t.decoy]],
		["the skill's parent folder", (t) => [t.parent, t.decoy]],
	];
	it.for(cases)(
		"never serves the secret when %s is swapped with a link",
		{ timeout: 60_000 },
		async ([what, pick], context) => {
			if (!swapper) return context.skip("no working `cc` to build the renameat2 swapper");
			const tree = await layout(what.replace(/\W+/g, "-"));
			const [swapped, decoy] = pick(tree);
			await symlink(decoy, `${swapped}-link`);
			const result = await race(tree, swapped, `${swapped}-link`);
			expect(result.swaps).toBeGreaterThan(1000);
			expect(result.leaked).toBe(0);
			expect(result.listLeaked).toBe(0);
			// The race is live in both directions: some reads land on the real file, some are refused.
			expect(result.served).toBeGreaterThan(0);
			expect(result.refused).toBeGreaterThan(0);
			expect(result.listed).toBeGreaterThan(0);
			expect(result.sessionServed).toBeGreaterThan(0);
			expect(result.chunkedServed).toBeGreaterThan(0);
			expect(result.heldServed).toBeGreaterThan(0);
			expect(result.activated).toBeGreaterThan(0);
		},
	);
});

describe("readContained against a file swapped for a FIFO", () => {
	it("returns not-file at once instead of blocking on the open", async () => {
		const tree = await layout("fifo");
		await mkdir(join(tree.skill, "assets"));
		await writeFile(join(tree.skill, "assets", "data.txt"), "data\n");
		const { NODE_CONTAIN_OPERATIONS } = await import("skillset");
		let swapped = false;
		const result = readContained(tree.skill, "assets/data.txt", {
			operations: {
				...NODE_CONTAIN_OPERATIONS,
				open: (path, flags) => {
					if (path.endsWith("/assets/data.txt")) {
						execFileSync("rm", [join(tree.skill, "assets", "data.txt")]);
						execFileSync("mkfifo", [join(tree.skill, "assets", "data.txt")]);
						swapped = true;
					}
					return NODE_CONTAIN_OPERATIONS.open(path, flags);
				},
			},
		});
		expect(swapped).toBe(true);
		expect(result).toMatchObject({ ok: false, code: "resource.not-file" });
	});
});
