// Issue 22: the contained tree (one root per skill, every name opened from its folder's descriptor). Written as the
// attacker: each row races the tree through the `ContainOperations` hooks at the exact call it attacks.
import { execFileSync } from "node:child_process";
import { appendFileSync, linkSync, lstatSync, mkdirSync, renameSync, rmSync, symlinkSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type ContainOperations, NODE_CONTAIN_OPERATIONS } from "../../src/runtime/contain.ts";
import { type ContainedTree, openContainedTree } from "../../src/runtime/contain-tree.ts";
import { tempDir, writeTree } from "../helpers/temp.ts";

const GUIDE = "# Guide: the real file\n";
const SECRET = "root:x:0:0:SECRET-PASSWD-LINE";

/** `<base>/skill` with a nested guide, and `<base>/decoy` mirroring it with the secret everywhere. */
async function layout() {
	const base = await tempDir();
	await writeTree(base, {
		"skill/SKILL.md": "---\nname: skill\ndescription: d\n---\nbody\n",
		"skill/references/guide.md": GUIDE,
		"skill/references/deep/more.md": GUIDE,
		"decoy/SKILL.md": SECRET,
		"decoy/guide.md": SECRET,
		"decoy/references/guide.md": SECRET,
		"decoy/references/deep/more.md": SECRET,
		"decoy/deep/more.md": SECRET,
	});
	return { base, skill: join(base, "skill"), decoy: join(base, "decoy") };
}

/** Operations that run `attack` once, just before the first open whose path ends with `suffix`. */
function hooked(suffix: string, attack: () => void): ContainOperations {
	let done = false;
	return {
		...NODE_CONTAIN_OPERATIONS,
		open: (path, flags) => {
			if (!done && path.endsWith(suffix)) {
				done = true;
				attack();
			}
			return NODE_CONTAIN_OPERATIONS.open(path, flags);
		},
	};
}

function open(root: string, ops: ContainOperations = NODE_CONTAIN_OPERATIONS): ContainedTree {
	const tree = openContainedTree(root, ops);
	if ("ok" in tree) throw new Error(tree.message);
	return tree;
}
const textOf = (read: ReturnType<ContainedTree["read"]>) =>
	read.ok ? new TextDecoder().decode(read.bytes) : read.code;

describe("openContainedTree: reads inside the skill folder", () => {
	it("reads files at every depth, reusing open folders, and lists folders with links as links", async () => {
		const { skill, decoy } = await layout();
		symlinkSync(decoy, join(skill, "references", "linked"));
		const tree = open(skill);
		try {
			expect(textOf(tree.read("references/guide.md"))).toBe(GUIDE);
			expect(textOf(tree.read("references/deep/more.md"))).toBe(GUIDE);
			expect(textOf(tree.read("SKILL.md"))).toContain("name: skill");
			const listed = tree.list("references");
			expect(listed.ok && listed.entries.find((e) => e.name === "linked")?.kind).toBe("symlink");
		} finally {
			tree.close();
		}
	});

	it.each([
		["a parent name", "../decoy/guide.md"],
		["a parent name in the middle", "references/../../decoy/guide.md"],
		["an absolute path", "/etc/passwd"],
		["a '.' name", "references/./guide.md"],
		["an empty name", "references//guide.md"],
		["a NUL", "references/guide.md\u0000.png"],
		["an empty path", ""],
	])("refuses %s", async (_what, path) => {
		const { skill } = await layout();
		const tree = open(skill);
		expect(tree.read(path)).toMatchObject({ ok: false, code: "resource.invalid-path" });
		tree.close();
	});

	it("follows no link: a file link, a folder link in the middle, a link chain", async () => {
		const { skill, decoy } = await layout();
		symlinkSync(join(decoy, "guide.md"), join(skill, "references", "link.md"));
		symlinkSync(join(decoy, "references"), join(skill, "linked"));
		symlinkSync(join(skill, "references", "link.md"), join(skill, "chain.md"));
		const tree = open(skill);
		expect(tree.read("references/link.md")).toMatchObject({ ok: false, code: "resource.symlink" });
		expect(tree.read("linked/guide.md")).toMatchObject({ ok: false, code: "resource.symlink" });
		expect(tree.read("chain.md")).toMatchObject({ ok: false, code: "resource.symlink" });
		expect(tree.list("linked")).toMatchObject({ ok: false, code: "resource.symlink" });
		tree.close();
	});

	it("refuses hard links unless allowed, and a file over the cap with its size, before reading it", async () => {
		const { skill, decoy } = await layout();
		linkSync(join(decoy, "guide.md"), join(skill, "hard.md"));
		truncateSync(join(skill, "references", "guide.md"), 64 << 20);
		let reads = 0;
		const tree = open(skill, {
			...NODE_CONTAIN_OPERATIONS,
			read: (...args) => {
				reads++;
				return NODE_CONTAIN_OPERATIONS.read(...args);
			},
		});
		expect(tree.read("hard.md")).toMatchObject({ ok: false, code: "resource.hardlink" });
		expect(textOf(tree.read("hard.md", { allowHardLinks: true }))).toBe(SECRET);
		reads = 0;
		expect(tree.read("references/guide.md")).toMatchObject({ ok: false, code: "resource.too-large", size: 64 << 20 });
		expect(reads).toBe(0);
		tree.close();
	});

	it("refuses a tree whose root is a link, is named through a link or /proc, or cannot be proven", async () => {
		const { base, skill } = await layout();
		symlinkSync(skill, join(base, "alias"));
		expect(openContainedTree(join(base, "alias"))).toMatchObject({ ok: false, code: "resource.not-found" });
		expect(openContainedTree(`/proc/self/root${skill}`)).toMatchObject({ ok: false, code: "resource.changed" });
		const noProc = {
			...NODE_CONTAIN_OPERATIONS,
			readlink: () => {
				throw Object.assign(new Error("no /proc"), { code: "ENOENT" });
			},
		};
		expect(openContainedTree(skill, noProc)).toMatchObject({ ok: false, code: "resource.unverifiable" });
	});
});

describe("openContainedTree under attack between its calls", () => {
	it("a file swapped for a link just before its open: refused, never the decoy", async () => {
		const { skill, decoy } = await layout();
		const file = join(skill, "references", "guide.md");
		const ops = hooked("/guide.md", () => {
			rmSync(file);
			symlinkSync(join(decoy, "guide.md"), file);
		});
		const tree = open(skill, ops);
		tree.list("references");
		expect(tree.read("references/guide.md")).toMatchObject({ ok: false, code: "resource.symlink" });
		tree.close();
	});

	it("a file swapped for a FIFO just before its open: not-file at once, no blocking", async () => {
		const { skill } = await layout();
		const file = join(skill, "references", "guide.md");
		const tree = open(
			skill,
			hooked("/guide.md", () => {
				rmSync(file);
				execFileSync("mkfifo", [file]);
			}),
		);
		expect(tree.read("references/guide.md")).toMatchObject({ ok: false, code: "resource.not-file" });
		tree.close();
	});

	it("a folder swapped for a link after it was listed: its files come from the folder listed, never the link", async () => {
		const { skill, decoy } = await layout();
		const folder = join(skill, "references");
		const tree = open(
			skill,
			hooked("/guide.md", () => {
				renameSync(folder, `${folder}-moved`);
				symlinkSync(join(decoy, "references"), folder);
			}),
		);
		expect(tree.list("references").ok).toBe(true);
		expect(textOf(tree.read("references/guide.md"))).toBe(GUIDE);
		expect(lstatSync(folder).isSymbolicLink()).toBe(true);
		// The next folder is opened afresh from the held parent: the link is refused, not followed.
		tree.close();
		const again = open(skill);
		expect(again.read("references/guide.md")).toMatchObject({ ok: false, code: "resource.symlink" });
		again.close();
	});

	it("a folder swapped for a link between two names of its path: refused at that name", async () => {
		const { skill, decoy } = await layout();
		const deep = join(skill, "references", "deep");
		const tree = open(
			skill,
			hooked("/deep", () => {
				renameSync(deep, `${deep}-moved`);
				symlinkSync(join(decoy, "deep"), deep);
			}),
		);
		expect(tree.read("references/deep/more.md")).toMatchObject({ ok: false, code: "resource.symlink" });
		tree.close();
	});

	it("a folder moved out of the skill after it was opened: its files are refused as outside", async () => {
		const { base, skill } = await layout();
		const folder = join(skill, "references");
		const tree = open(
			skill,
			hooked("/more.md", () => renameSync(folder, join(base, "away"))),
		);
		expect(textOf(tree.read("references/guide.md"))).toBe(GUIDE);
		expect(tree.read("references/deep/more.md")).toMatchObject({ ok: false, code: "resource.outside" });
		tree.close();
	});

	it("the root swapped for a link after the tree opened: nothing of the link's target is ever served", async () => {
		const { base, skill, decoy } = await layout();
		const tree = open(skill);
		expect(textOf(tree.read("SKILL.md"))).toContain("name: skill");
		renameSync(skill, join(base, "old"));
		symlinkSync(decoy, skill);
		for (const path of ["SKILL.md", "references/guide.md", "references/deep/more.md"]) {
			const read = tree.read(path);
			expect(read.ok ? new TextDecoder().decode(read.bytes) : read.code, path).not.toContain("SECRET");
			expect(read).toMatchObject({ ok: false, code: "resource.outside" });
		}
		const listed = tree.list("references");
		expect(listed.ok).toBe(false);
		tree.close();
	});

	it("a file that grows while it is read: at most the size its descriptor showed", async () => {
		const { skill } = await layout();
		const file = join(skill, "references", "guide.md");
		let grown = 0;
		const tree = open(skill, {
			...NODE_CONTAIN_OPERATIONS,
			read: (fd, buffer, offset, length, position) => {
				if (grown++ < 3) appendFileSync(file, "x".repeat(1 << 20));
				return NODE_CONTAIN_OPERATIONS.read(fd, buffer, offset, length, position);
			},
		});
		const read = tree.read("references/guide.md");
		expect(read.ok && read.size).toBe(GUIDE.length);
		expect(grown).toBeGreaterThan(0);
		tree.close();
	});

	it("closes every descriptor it opened, whether it served, refused or failed", async () => {
		const { skill, decoy } = await layout();
		symlinkSync(decoy, join(skill, "linked"));
		mkdirSync(join(skill, "a", "b", "c"), { recursive: true });
		const held = new Set<number>();
		const ops: ContainOperations = {
			...NODE_CONTAIN_OPERATIONS,
			open: (path, flags) => {
				const fd = NODE_CONTAIN_OPERATIONS.open(path, flags);
				held.add(fd);
				return fd;
			},
			close: (fd) => {
				held.delete(fd);
				NODE_CONTAIN_OPERATIONS.close(fd);
			},
		};
		const tree = open(skill, ops);
		for (const path of ["references/guide.md", "linked/guide.md", "a/b/c/none", "references/deep/more.md", "x/y"])
			tree.read(path);
		tree.list("a/b/c");
		tree.list("references");
		tree.close();
		expect(held.size).toBe(0);
		expect(tree.read("SKILL.md")).toMatchObject({ ok: false, code: "resource.changed" });
	});
});
