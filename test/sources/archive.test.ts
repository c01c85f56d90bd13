import { execFileSync } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { readArchive, readTar, SourceError, writeTar } from "skillset/sources";
import { describe, expect, it } from "vitest";
import { tempDir } from "../helpers/temp.ts";

/** A raw ustar header block for any entry type, so the tests can build what no well-behaved tool writes. */
function header(name: string, type: string, size = 0, linkname = ""): Uint8Array {
	const block = new Uint8Array(512);
	const put = (text: string, at: number) => block.set(new TextEncoder().encode(text), at);
	put(name, 0);
	put("0000644\0", 100);
	put("0000000\0", 108);
	put("0000000\0", 116);
	put(`${size.toString(8).padStart(11, "0")}\0`, 124);
	put("00000000000\0", 136);
	put(type, 156);
	put(linkname, 157);
	put("ustar\0", 257);
	put("00", 263);
	put("        ", 148);
	const sum = block.reduce((total, byte) => total + byte, 0);
	put(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
	return block;
}

function tarOf(...blocks: Uint8Array[]): Uint8Array {
	return gzipSync(Buffer.concat([...blocks, new Uint8Array(1024)]));
}

function file(name: string, text: string): Uint8Array[] {
	const data = new TextEncoder().encode(text);
	const padded = new Uint8Array(Math.ceil(data.length / 512) * 512);
	padded.set(data);
	return [header(name, "0", data.length), padded];
}

async function codeOf(task: Promise<unknown>): Promise<string> {
	try {
		await task;
		return "no error";
	} catch (error) {
		expect(error).toBeInstanceOf(SourceError);
		return (error as SourceError).code;
	}
}

const SKILL = "---\nname: demo\ndescription: Demo.\n---\nBody.\n";

describe("readArchive (tar.gz)", () => {
	it("reads files and folders and keeps executable bits", async () => {
		const tar = writeTar([
			{ path: "SKILL.md", data: new TextEncoder().encode(SKILL) },
			{ path: "scripts/run.sh", data: new TextEncoder().encode("#!/bin/sh\n"), executable: true },
		]);
		const files = await readArchive(gzipSync(tar), "tar.gz", { requireSkillMd: true });
		expect(files.map((f) => [f.path, f.executable])).toEqual([
			["SKILL.md", false],
			["scripts/run.sh", true],
		]);
	});

	it("round-trips paths longer than 100 bytes through pax records", () => {
		const path = `references/${"deep/".repeat(30)}notes.md`;
		const entries = readTar(writeTar([{ path, data: new Uint8Array([1, 2, 3]) }]), 10);
		expect(entries.map((e) => [e.path, e.type, [...e.data]])).toEqual([[path, "file", [1, 2, 3]]]);
	});

	it.each([
		["a path with ..", tarOf(...file("SKILL.md", SKILL), ...file("../escape.md", "x")), "archive.traversal"],
		["a nested ..", tarOf(...file("SKILL.md", SKILL), ...file("a/../../escape.md", "x")), "archive.traversal"],
		["an absolute path", tarOf(...file("/etc/cron.d/x", "x")), "archive.absolute"],
		["a symlink", tarOf(...file("SKILL.md", SKILL), header("link", "2", 0, "/etc/passwd")), "archive.link"],
		["a hard link", tarOf(...file("SKILL.md", SKILL), header("hard", "1", 0, "SKILL.md")), "archive.link"],
		["a character device", tarOf(...file("SKILL.md", SKILL), header("dev", "3")), "archive.special"],
		["a FIFO", tarOf(...file("SKILL.md", SKILL), header("fifo", "6")), "archive.special"],
		[
			"entries equal after case folding",
			tarOf(...file("SKILL.md", SKILL), ...file("skill.md", "x")),
			"archive.collision",
		],
		[
			"entries equal after Unicode normalisation",
			tarOf(...file("SKILL.md", SKILL), ...file("caf\u00e9.md", "x"), ...file("cafe\u0301.md", "y")),
			"archive.collision",
		],
		[
			"a file that is also a folder",
			tarOf(...file("SKILL.md", SKILL), ...file("a", "x"), ...file("a/b", "y")),
			"archive.collision",
		],
		["no SKILL.md at the root", tarOf(...file("nested/SKILL.md", SKILL)), "archive.no-skill-md"],
		[
			"a broken header checksum",
			gzipSync(Buffer.concat([header("x", "0").fill(7, 0, 10), new Uint8Array(1024)])),
			"archive.corrupt",
		],
		["not gzip at all", new TextEncoder().encode("plain text"), "archive.corrupt"],
	])("refuses %s", async (_, bytes, code) => {
		expect(await codeOf(readArchive(bytes, "tar.gz", { requireSkillMd: true }))).toBe(code);
	});

	it("stops a tar bomb while inflating, before it is in memory", async () => {
		const bomb = gzipSync(Buffer.alloc(200 << 20));
		expect(bomb.length).toBeLessThan(1 << 20);
		expect(await codeOf(readArchive(bomb, "tar.gz"))).toMatch(/^archive\.(ratio|too-large)$/);
	});
});

describe("readArchive (zip)", () => {
	const python = (dir: string, script: string) => execFileSync("python3", ["-c", script], { cwd: dir });

	async function zipWith(script: string): Promise<Uint8Array> {
		const dir = await tempDir();
		python(dir, `import zipfile\nz = zipfile.ZipFile("a.zip", "w", zipfile.ZIP_DEFLATED)\n${script}\nz.close()`);
		return readFile(join(dir, "a.zip"));
	}

	it("reads a zip made by a real zip tool", async () => {
		const dir = await tempDir();
		await mkdir(join(dir, "src", "references"), { recursive: true });
		await writeFile(join(dir, "src", "SKILL.md"), SKILL);
		await writeFile(join(dir, "src", "references", "a.md"), "A\n");
		execFileSync("zip", ["-q", "-r", "../s.zip", "."], { cwd: join(dir, "src") });
		const files = await readArchive(await readFile(join(dir, "s.zip")), "zip", { requireSkillMd: true });
		expect(files.map((f) => f.path).sort()).toEqual(["SKILL.md", "references/a.md"]);
	});

	it.each([
		["a path with ..", `z.writestr("SKILL.md", "x")\nz.writestr("../evil.md", "x")`, "archive.traversal"],
		["an absolute path", `z.writestr("/tmp/evil.md", "x")`, "archive.absolute"],
		[
			"a symlink",
			`z.writestr("SKILL.md", "x")\ni = zipfile.ZipInfo("link")\ni.external_attr = (0o120777 << 16)\nz.writestr(i, "/etc/passwd")`,
			"archive.link",
		],
		["case-colliding entries", `z.writestr("SKILL.md", "x")\nz.writestr("Skill.MD", "y")`, "archive.collision"],
		[
			"a zip bomb",
			`z.writestr("SKILL.md", "x")\nz.writestr("zeros.bin", bytes(50 * 1024 * 1024))`,
			"archive.too-large",
		],
		[
			"a dense bomb under the size cap",
			`z.writestr("SKILL.md", "x")\nz.writestr("zeros.bin", bytes(4 * 1024 * 1024))`,
			"archive.ratio",
		],
	])("refuses %s", async (_, script, code) => {
		expect(await codeOf(readArchive(await zipWith(script), "zip"))).toBe(code);
	});
});
