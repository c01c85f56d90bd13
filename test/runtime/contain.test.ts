import { readdirSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { link, mkdir, rename, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { type ContainOperations, isInside, listContained, NODE_CONTAIN_OPERATIONS, readContained } from "skillset";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDir, writeTree } from "../helpers/temp.ts";

let base: string;
let skill: string;
let outside: string;

beforeAll(async () => {
	base = await tempDir();
	skill = join(base, "skill");
	outside = join(base, "outside");
	await writeTree(base, {
		"skill/SKILL.md": "---\nname: skill\ndescription: d\n---\nx\n",
		"skill/references/guide.md": "# Guide\n",
		"skill/references/..notes.md": "dots in a name are fine\n",
		"skill/scripts/run.sh": "echo hi\n",
		"outside/secret.txt": "SECRET\n",
		"outside/guide.md": "# Evil guide\n",
		"skill-evil/x.md": "sibling\n",
	});
	await symlink(join(outside, "secret.txt"), join(skill, "references", "link.md"));
	await symlink(outside, join(skill, "linked-dir"));
	await link(join(outside, "secret.txt"), join(skill, "references", "hard.md"));
});

const text = (result: ReturnType<typeof readContained>) =>
	result.ok ? new TextDecoder().decode(result.bytes) : result.code;

describe("readContained", () => {
	it("reads a file inside the skill, and a name that merely starts with two dots", () => {
		expect(text(readContained(skill, "references/guide.md"))).toBe("# Guide\n");
		expect(text(readContained(skill, "./references//guide.md"))).toBe("# Guide\n");
		expect(text(readContained(skill, "references/..notes.md"))).toBe("dots in a name are fine\n");
	});

	it.each([
		["a parent segment", "../outside/secret.txt"],
		["a parent segment in the middle", "references/../../outside/secret.txt"],
		["an absolute path", "/etc/passwd"],
		["a Windows drive path", "C:\\Windows\\win.ini"],
		["a drive-relative path", "C:secret.txt"],
		["a UNC path", "\\\\server\\share\\x"],
		["a backslash", "references\\guide.md"],
		["a NUL", "references/guide.md\u0000.png"],
		["an empty path", ""],
		["the folder itself", "./"],
		["a non-string", 42],
	])("refuses %s", (_what, path) => {
		expect(readContained(skill, path)).toMatchObject({ ok: false, code: "resource.invalid-path" });
	});

	it("refuses a symlinked file and a symlinked folder in the middle", () => {
		expect(readContained(skill, "references/link.md")).toMatchObject({ ok: false, code: "resource.symlink" });
		expect(readContained(skill, "linked-dir/secret.txt")).toMatchObject({ ok: false, code: "resource.symlink" });
	});

	it("refuses a hard link, which could alias a file outside", () => {
		expect(readContained(skill, "references/hard.md")).toMatchObject({ ok: false, code: "resource.hardlink" });
	});

	it("refuses a sibling folder that shares the name's prefix", () => {
		expect(isInside(skill, join(base, "skill-evil", "x.md"))).toBe(false);
		expect(isInside(skill, join(skill, "..x"))).toBe(true);
	});

	it("refuses missing files, folders and oversized files", () => {
		expect(readContained(skill, "references/none.md")).toMatchObject({ ok: false, code: "resource.not-found" });
		expect(readContained(skill, "references")).toMatchObject({ ok: false, code: "resource.not-file" });
		expect(readContained(skill, "references/guide.md", { maxBytes: 3 })).toMatchObject({
			ok: false,
			code: "resource.too-large",
		});
	});

	it("refuses a file swapped for a link between the check and the open", async () => {
		const victim = join(skill, "scripts", "swap.sh");
		await writeFile(victim, "safe\n");
		const racing: ContainOperations = {
			...NODE_CONTAIN_OPERATIONS,
			open: (path, flags) => {
				if (path.endsWith("/scripts/swap.sh")) {
					rmSync(victim);
					symlinkSync(join(outside, "secret.txt"), victim);
				}
				return NODE_CONTAIN_OPERATIONS.open(path, flags);
			},
		};
		expect(readContained(skill, "scripts/swap.sh", { operations: racing })).toMatchObject({
			ok: false,
			code: "resource.symlink",
		});
		await rm(victim);
	});

	it("refuses a file whose folder was replaced by a link while it was being read", async () => {
		const folder = join(skill, "assets");
		await writeTree(skill, { "assets/guide.md": "# Real\n" });
		const racing: ContainOperations = {
			...NODE_CONTAIN_OPERATIONS,
			open: (path, flags) => {
				if (path.endsWith("/assets/guide.md")) {
					renameSync(folder, `${folder}-moved`);
					symlinkSync(outside, folder);
				}
				return NODE_CONTAIN_OPERATIONS.open(path, flags);
			},
		};
		const result = readContained(skill, "assets/guide.md", { operations: racing });
		expect(result).toMatchObject({ ok: false, code: "resource.changed" });
		await rm(folder);
		await rename(`${folder}-moved`, folder);
	});

	it("fails closed when the system cannot show where an opened file is (no /proc/self/fd)", () => {
		const noProc: ContainOperations = {
			...NODE_CONTAIN_OPERATIONS,
			readlink: (path) => {
				if (path.startsWith("/proc/")) throw Object.assign(new Error("ENOENT"), { code: "ENOENT" });
				return NODE_CONTAIN_OPERATIONS.readlink(path);
			},
		};
		expect(readContained(skill, "references/guide.md", { operations: noProc })).toMatchObject({
			ok: false,
			code: "resource.unverifiable",
		});
		expect(listContained(skill, "references", noProc)).toMatchObject({ ok: false, code: "resource.unverifiable" });
	});

	it("refuses a root given by a path that is not its real path", async () => {
		await symlink(skill, join(base, "skill-alias"));
		expect(readContained(join(base, "skill-alias"), "references/guide.md")).toMatchObject({ ok: false });
		expect(readContained(`${skill}/`, "references/guide.md")).toMatchObject({ ok: true });
	});

	it("closes every descriptor it opens, whether it serves or refuses", () => {
		const open = () => readdirSync("/proc/self/fd").length;
		const before = open();
		for (let i = 0; i < 200; i++) {
			readContained(skill, "references/guide.md");
			readContained(skill, "references/link.md");
			readContained(skill, "references/hard.md");
			readContained(skill, "references/none.md");
			listContained(skill, "references");
			listContained(skill, "linked-dir");
		}
		expect(open()).toBe(before);
	});

	it("reports the real path of the file it opened", () => {
		expect(readContained(skill, "./references//guide.md")).toMatchObject({
			ok: true,
			absolute: join(skill, "references", "guide.md"),
		});
	});

	it("either resolves every path inside the skill or refuses it (property)", async () => {
		await mkdir(join(skill, "deep", "er"), { recursive: true });
		const segment = fc.constantFrom(
			"..",
			".",
			"",
			"references",
			"guide.md",
			"deep",
			"er",
			"linked-dir",
			"secret.txt",
			"C:",
			"%2e%2e",
			"\\",
			"\u0000",
			"ｒｅｆ",
			"..notes.md",
		);
		const random = fc
			.array(segment, { maxLength: 7 })
			.chain((parts) => fc.constantFrom(parts.join("/"), `/${parts.join("/")}`, parts.join("\\")));
		const nearValid = fc.constantFrom(
			"references/guide.md",
			"./references/guide.md",
			"references/./guide.md",
			"scripts/run.sh",
			"SKILL.md",
		);
		let served = 0;
		fc.assert(
			fc.property(fc.oneof(random, nearValid), (candidate) => {
				const result = readContained(skill, candidate);
				if (result.ok) {
					served++;
					expect(isInside(skill, result.absolute)).toBe(true);
					expect(new TextDecoder().decode(result.bytes)).not.toContain("SECRET");
				} else {
					expect(result.code).toMatch(/^resource\./);
				}
			}),
			{ numRuns: 1000 },
		);
		expect(served).toBeGreaterThan(50);
	});
});
