// Issue 18: the contained read in chunks off the event loop (for large MCP reads) keeps every check of the
// synchronous one: each attack gets the same refusal, and a descriptor is proven before a byte is read.
import { createHash } from "node:crypto";
import { appendFileSync, lstatSync, readdirSync, rmSync, symlinkSync, truncateSync } from "node:fs";
import { link, rename, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type ContainOperations, NODE_CONTAIN_OPERATIONS, readContained, readContainedAsync } from "skillset";
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
		"skill/assets/big.txt": "0123456789".repeat(100_000),
		"outside/secret.txt": "SECRET\n",
	});
	await symlink(join(outside, "secret.txt"), join(skill, "references", "link.md"));
	await symlink(outside, join(skill, "linked-dir"));
	await link(join(outside, "secret.txt"), join(skill, "references", "hard.md"));
});

describe("readContainedAsync", () => {
	it.each([
		["a parent segment", "../outside/secret.txt"],
		["an absolute path", "/etc/passwd"],
		["a backslash", "references\\guide.md"],
		["a NUL", "references/guide.md\u0000.png"],
		["a symlinked file", "references/link.md"],
		["a symlinked folder", "linked-dir/secret.txt"],
		["a hard link", "references/hard.md"],
		["a missing file", "references/none.md"],
		["a folder", "references"],
	])("refuses %s with the code the synchronous read gives", async (_what, path) => {
		const sync = readContained(skill, path);
		expect(sync.ok).toBe(false);
		expect(await readContainedAsync(skill, path)).toEqual(sync);
	});

	it("refuses a file over the cap before reading it", async () => {
		expect(await readContainedAsync(skill, "assets/big.txt", { maxBytes: 1000 })).toMatchObject({
			ok: false,
			code: "resource.too-large",
		});
	});

	it("reads the same bytes as the synchronous read, in chunks, with their SHA-256", async () => {
		const sync = readContained(skill, "assets/big.txt");
		const chunked = await readContainedAsync(skill, "assets/big.txt", { chunkBytes: 4096, digest: "sha256" });
		if (!sync.ok || !chunked.ok) throw new Error("both reads should serve the file");
		expect(Buffer.from(chunked.bytes).equals(Buffer.from(sync.bytes))).toBe(true);
		expect(chunked.sha256).toBe(createHash("sha256").update(sync.bytes).digest("hex"));
		expect(chunked.absolute).toBe(join(skill, "assets", "big.txt"));
	});

	it("refuses a file swapped for a link between the check and the open", async () => {
		const victim = join(skill, "references", "swap.md");
		await writeFile(victim, "safe\n");
		const racing: ContainOperations = {
			...NODE_CONTAIN_OPERATIONS,
			open: (path, flags) => {
				if (path.endsWith("/references/swap.md")) {
					rmSync(victim);
					symlinkSync(join(outside, "secret.txt"), victim);
				}
				return NODE_CONTAIN_OPERATIONS.open(path, flags);
			},
		};
		expect(await readContainedAsync(skill, "references/swap.md", { operations: racing })).toMatchObject({
			ok: false,
			code: "resource.symlink",
		});
		await rm(victim);
	});

	it("reads only the verified descriptor: a file replaced mid-read still gives the bytes it was opened with", async () => {
		const victim = join(skill, "assets", "moving.txt");
		await writeFile(victim, "a".repeat(64 * 1024));
		let chunks = 0;
		const racing: ContainOperations = {
			...NODE_CONTAIN_OPERATIONS,
			readAsync: async (fd, buffer, offset, length, position) => {
				if (chunks++ === 1) {
					rmSync(victim);
					symlinkSync(join(outside, "secret.txt"), victim);
				}
				return (NODE_CONTAIN_OPERATIONS.readAsync as NonNullable<ContainOperations["readAsync"]>)(
					fd,
					buffer,
					offset,
					length,
					position,
				);
			},
		};
		const read = await readContainedAsync(skill, "assets/moving.txt", { operations: racing, chunkBytes: 4096 });
		expect(read.ok && new TextDecoder().decode(read.bytes)).toBe("a".repeat(64 * 1024));
		await rm(victim);
	});

	it("reads no more than the size it verified when the file grows while it is read", async () => {
		const growing = join(skill, "assets", "growing.txt");
		await writeFile(growing, "b".repeat(8192));
		const racing: ContainOperations = {
			...NODE_CONTAIN_OPERATIONS,
			readAsync: async (fd, buffer, offset, length, position) => {
				appendFileSync(growing, "c".repeat(100_000));
				return (NODE_CONTAIN_OPERATIONS.readAsync as NonNullable<ContainOperations["readAsync"]>)(
					fd,
					buffer,
					offset,
					length,
					position,
				);
			},
		};
		const read = await readContainedAsync(skill, "assets/growing.txt", { operations: racing, chunkBytes: 1024 });
		expect(read.ok && read.size).toBe(8192);
		await rm(growing);
	});

	it("asks beforeRead with the verified descriptor's size, not a size seen earlier, and reads only once it agrees", async () => {
		// An attacker swaps a small file for a large one after a caller sized it by path: the gate still sees 1 MB.
		const swapped = join(skill, "assets", "swapped.txt");
		await writeFile(swapped, "s");
		const sizedByPath = lstatSync(swapped).size;
		await writeFile(`${swapped}.new`, "L".repeat(1_000_000));
		await rename(`${swapped}.new`, swapped);
		const events: string[] = [];
		let admit: () => void = () => undefined;
		const reading = readContainedAsync(skill, "assets/swapped.txt", {
			beforeRead: (size) => {
				events.push(`gate ${size}`);
				return new Promise<void>((resolve) => {
					admit = resolve;
				});
			},
			buffer: (size) => {
				events.push(`buffer ${size}`);
				return new Uint8Array(size);
			},
		});
		await new Promise((resolve) => setTimeout(resolve, 20));
		expect(sizedByPath).toBe(1);
		expect(events).toEqual(["gate 1000000"]);
		admit();
		const read = await reading;
		expect(read.ok && read.size).toBe(1_000_000);
		expect(events).toEqual(["gate 1000000", "buffer 1000000"]);
		await rm(swapped);
	});

	it("hands on only the bytes it read when a small file shrinks after the check, whatever the buffer held", async () => {
		const shrinking = join(skill, "assets", "shrinking.txt");
		await writeFile(shrinking, "12345678");
		const racing: ContainOperations = {
			...NODE_CONTAIN_OPERATIONS,
			read: (fd, buffer, offset, length, position) => {
				if (position === 0) truncateSync(shrinking, 3);
				return NODE_CONTAIN_OPERATIONS.read(fd, buffer, offset, length, position);
			},
		};
		// A dirty buffer, as an unzeroed or reused one may be: what it held must not reach the caller.
		const read = await readContainedAsync(skill, "assets/shrinking.txt", {
			operations: racing,
			syncBytes: 1024,
			buffer: (size) => new Uint8Array(size).fill(0x58),
		});
		expect(read.ok && Buffer.from(read.bytes).toString()).toBe("123");
		await rm(shrinking);
	});

	it("refuses with resource.unreadable when the read itself fails", async () => {
		const failing: ContainOperations = {
			...NODE_CONTAIN_OPERATIONS,
			readAsync: async () => {
				throw Object.assign(new Error("EIO"), { code: "EIO" });
			},
		};
		expect(await readContainedAsync(skill, "references/guide.md", { operations: failing })).toMatchObject({
			ok: false,
			code: "resource.unreadable",
		});
	});

	it("closes every descriptor it opens, whether it serves, refuses or fails", async () => {
		const failing: ContainOperations = {
			...NODE_CONTAIN_OPERATIONS,
			readAsync: async () => {
				throw Object.assign(new Error("EIO"), { code: "EIO" });
			},
		};
		const open = () => readdirSync("/proc/self/fd").length;
		const before = open();
		for (let i = 0; i < 100; i++) {
			await readContainedAsync(skill, "assets/big.txt", { chunkBytes: 65536 });
			await readContainedAsync(skill, "references/link.md");
			await readContainedAsync(skill, "references/hard.md");
			await readContainedAsync(skill, "references/guide.md", { operations: failing });
		}
		expect(open()).toBe(before);
	});
});
