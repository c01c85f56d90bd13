import { spawnSync } from "node:child_process";
import { rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createDiscovery, diffIndexes, type WatchEvent, watchSkills } from "skillset";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { pastRacyWindow } from "../helpers/racy.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

let dir: string;

beforeEach(async () => {
	dir = join(await tempDir(), "skills");
	await writeTree(dir, {
		"alpha/SKILL.md": skillMd("alpha"),
		"beta/SKILL.md": skillMd("beta"),
		"group/gamma/SKILL.md": skillMd("gamma"),
	});
	await pastRacyWindow();
});

const make = () => createDiscovery({ cwd: dir, home: dir, defaultRoots: false, roots: [dir] });

describe("createDiscovery", { timeout: 30_000 }, () => {
	it("rescans an unchanged tree from the cache, with the same index in the same order", async () => {
		const discovery = make();
		const first = await discovery.scan();
		expect(first.report.reused).toEqual({ dirs: 0, files: 0 });
		const second = await discovery.scan();
		expect(second.report.reused).toEqual({ dirs: 5, files: 3 });
		expect(second.index.skills.map((s) => s.qualifiedName)).toEqual(first.index.skills.map((s) => s.qualifiedName));
		expect(diffIndexes(first.index, second.index)).toEqual({ added: [], changed: [], removed: [] });
	});

	it("re-reads only what changed and says exactly what changed", async () => {
		const discovery = make();
		const first = await discovery.scan();
		await writeFile(join(dir, "beta", "SKILL.md"), skillMd("beta", "A new description."));
		await rm(join(dir, "alpha"), { recursive: true });
		await writeTree(dir, { "delta/SKILL.md": skillMd("delta") });
		const second = await discovery.scan();
		expect(second.report.reused.files).toBe(1);
		expect(second.index.get("beta")?.description).toBe("A new description.");
		expect(diffIndexes(first.index, second.index)).toEqual({
			added: ["delta@workspace"],
			changed: ["beta@workspace"],
			removed: ["alpha@workspace"],
		});
	});

	it("reuses the walk when only a SKILL.md's content changed", async () => {
		const discovery = make();
		const first = await discovery.scan();
		await writeFile(join(dir, "group", "gamma", "SKILL.md"), skillMd("gamma", "Rewritten description."));
		const second = await discovery.scan();
		expect(second.report.reused).toEqual({ dirs: 5, files: 2 });
		expect(second.index.get("gamma")?.description).toBe("Rewritten description.");
		expect(diffIndexes(first.index, second.index)).toEqual({ added: [], changed: ["gamma@workspace"], removed: [] });
		await writeTree(dir, { "group/delta/SKILL.md": skillMd("delta") });
		expect((await discovery.scan()).index.names()).toContain("delta");
	});

	it("sees a SKILL.md put into an existing subfolder of a skill, as a fresh scan does", async () => {
		await writeTree(dir, { "alpha/notes/todo.txt": "later\n" });
		await pastRacyWindow();
		const discovery = make();
		const codes = (result: { report: { diagnostics: { code: string }[] } }) =>
			result.report.diagnostics.map((d) => d.code);
		expect(codes(await discovery.scan())).not.toContain("entry.nested");
		// Only the subfolder's listing changes: neither the skill's folder nor any SKILL.md the last scan read.
		await writeTree(dir, { "alpha/notes/SKILL.md": skillMd("notes") });
		expect(codes(await discovery.scan())).toContain("entry.nested");
		await rm(join(dir, "alpha", "notes", "SKILL.md"));
		expect(codes(await discovery.scan())).not.toContain("entry.nested");
	});

	it("sees a SKILL.md rewritten in place with its size and mtime kept: only its ctime tells", async () => {
		const discovery = make();
		await discovery.scan();
		const file = join(dir, "beta", "SKILL.md");
		const before = await stat(file);
		// Its times kept to the nanosecond (`touch -r`), as an edit in the same clock tick would leave them.
		const reference = join(dir, "..", "times");
		expect(spawnSync("touch", ["-r", file, reference]).status).toBe(0);
		await writeFile(file, skillMd("beta", "B".repeat(skillMd("beta").length - skillMd("beta", "").length)));
		expect(spawnSync("touch", ["-r", reference, file]).status).toBe(0);
		const after = await stat(file);
		expect([after.ino, after.size, after.mtimeMs]).toEqual([before.ino, before.size, before.mtimeMs]);
		expect((await discovery.scan()).index.get("beta")?.description).toMatch(/^B+$/);
	});

	it("shares one scan between overlapping calls", async () => {
		const discovery = make();
		const [a, b] = await Promise.all([discovery.scan(), discovery.scan()]);
		expect(a).toBe(b);
		expect(discovery.current).toBe(a);
	});
});

describe("watchSkills", { timeout: 30_000 }, () => {
	it("debounces file events, swaps the index and reports the change set", async () => {
		const discovery = make();
		const events: WatchEvent[] = [];
		const watcher = watchSkills(discovery, { debounceMs: 50, onChange: (event) => events.push(event) });
		try {
			const before = (await watcher.ready).index;
			await writeTree(dir, { "epsilon/SKILL.md": skillMd("epsilon") });
			await writeFile(join(dir, "beta", "SKILL.md"), skillMd("beta", "Edited."));
			await rm(join(dir, "group"), { recursive: true });
			const seen = (key: "added" | "changed" | "removed") => new Set(events.flatMap((e) => e[key]));
			await vi.waitFor(
				() => {
					expect(seen("added")).toEqual(new Set(["epsilon@workspace"]));
					expect(seen("changed")).toEqual(new Set(["beta@workspace"]));
					expect(seen("removed")).toEqual(new Set(["gamma@workspace"]));
				},
				{ timeout: 5000, interval: 50 },
			);
			expect(watcher.index).toBe(discovery.current?.index);
			expect(watcher.index).not.toBe(before);
			expect(events.at(-1)?.index.get("epsilon")).toBeDefined();
		} finally {
			watcher.close();
		}
	});
});
