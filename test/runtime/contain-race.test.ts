// Issue 8 §1: contained reads under a race. A small C program swaps two paths with renameat2(RENAME_EXCHANGE) in a
// tight loop while the reader runs; no read may ever return the secret, whatever the timing.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
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
import { tempDir, writeTree } from "../helpers/temp.ts";

const SWAPPER_C = `
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
static volatile sig_atomic_t stop = 0;
static void on_term(int sig) { (void)sig; stop = 1; }
static int swap(const char *a, const char *b) {
	return (int)syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
}
int main(int argc, char **argv) {
	if (argc != 4) return 2;
	/* Pauses between swaps, changed every 2,048 swaps, so the swaps land at every point of the reader's calls. */
	static const long pace[] = {0, 64, 256, 1024, 4096};
	signal(SIGTERM, on_term);
	time_t end = time(NULL) + atoi(argv[3]);
	unsigned long swaps = 0;
	/* Stop only after an even number of swaps, so the tree is left as it was. */
	while (!stop || (swaps & 1)) {
		if (swap(argv[1], argv[2]) != 0) { perror("renameat2"); return 1; }
		swaps++;
		for (volatile long i = 0; i < pace[(swaps >> 11) % 5]; i++) {}
		if ((swaps & 1023) == 0 && time(NULL) > end) stop = 1;
	}
	printf("%lu\\n", swaps);
	return 0;
}
`;

const SECRET = "root:x:0:0:SECRET-PASSWD-LINE";
const GUIDE = "# Guide: the real file\n";
const READS_PER_CASE = 17_000; // three cases: 51,000 reads in all

type Tree = { parent: string; skill: string; decoy: string; index: SkillIndex };

let base: string;
let swapper: string | undefined;

beforeAll(async () => {
	base = await tempDir();
	try {
		const source = join(base, "swapper.c");
		await writeFile(source, SWAPPER_C);
		swapper = join(base, "swapper");
		execFileSync("cc", ["-O2", "-o", swapper, source], { stdio: "pipe" });
	} catch {
		swapper = undefined;
	}
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

function startSwapper(a: string, b: string): { child: ChildProcess; done: Promise<number> } {
	const child = spawn(swapper as string, [a, b, "60"], { stdio: ["ignore", "pipe", "pipe"] });
	let out = "";
	child.stdout?.on("data", (chunk: Buffer) => {
		out += chunk.toString();
	});
	const done = new Promise<number>((resolve, reject) => {
		child.on("error", reject);
		child.on("exit", (code) => (code === 0 ? resolve(Number(out.trim())) : reject(new Error(`swapper exit ${code}`))));
	});
	return { child, done };
}

/**
 * Reads `references/guide.md` directly and through a session (tier 3), lists `references/` and activates the skill
 * (tier 2) while `a` and `b` are exchanged in a loop.
 */
async function race(tree: Tree, a: string, b: string) {
	const { skill, index } = tree;
	const session = createSession(index, { tokenizer: estimateTokenizer });
	const swap = startSwapper(a, b);
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
	};
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
