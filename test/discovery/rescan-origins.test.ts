// A rescan that only has SKILL.md files to read again (edited, or read too close to a change to vouch for
// themselves) keeps the last walk of every root, remote origins included: it must not fetch an origin again.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createDiscovery, type OriginProvider } from "skillset";
import { describe, expect, it } from "vitest";
import { pastRacyWindow } from "../helpers/racy.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

describe("a rescan with only SKILL.md contents to read again", { timeout: 30_000 }, () => {
	it("reads the local files again and does not load a remote origin again", async () => {
		const base = await tempDir();
		const local = await writeTree(join(base, "local"), { "alpha/SKILL.md": skillMd("alpha", "First.") });
		const folder = await writeTree(join(base, "origin"), { "remote/SKILL.md": skillMd("remote", "Remote.") });
		let loads = 0;
		const provider: OriginProvider = {
			origin: "index:test",
			load: async () => {
				loads++;
				return { folder, skills: [{ dir: "remote" }], diagnostics: [] };
			},
		};
		const discovery = createDiscovery({
			cwd: base,
			home: join(base, "no-home"),
			defaultRoots: false,
			roots: [local],
			origins: [provider],
		});
		const first = await discovery.scan();
		expect(first.index.get("remote")).toBeDefined();
		expect(loads).toBe(1);
		// Read moments after they were written: the rescan reads them again (racy), the origin stays as loaded.
		await discovery.scan();
		expect(loads).toBe(1);
		await pastRacyWindow();
		await discovery.scan();
		writeFileSync(join(local, "alpha", "SKILL.md"), skillMd("alpha", "Edited."));
		const edited = await discovery.scan();
		expect(edited.index.get("alpha")?.properties.description).toBe("Edited.");
		expect(edited.index.get("remote")).toBeDefined();
		expect(loads).toBe(1);
	});
});

describe("a rescan after an origin could not be reached", { timeout: 30_000 }, () => {
	it("tries the origin again when only a SKILL.md changed, and takes its skills once it answers", async () => {
		const base = await tempDir();
		const local = await writeTree(join(base, "local"), { "alpha/SKILL.md": skillMd("alpha", "First.") });
		const folder = await writeTree(join(base, "origin"), { "remote/SKILL.md": skillMd("remote", "Remote.") });
		let loads = 0;
		const provider: OriginProvider = {
			origin: "index:flaky",
			load: async () => {
				loads++;
				if (loads === 1) throw new Error("connection refused");
				return { folder, skills: [{ dir: "remote" }], diagnostics: [] };
			},
		};
		const discovery = createDiscovery({
			cwd: base,
			home: join(base, "no-home"),
			defaultRoots: false,
			roots: [local],
			origins: [provider],
		});
		expect((await discovery.scan()).index.get("remote")).toBeUndefined();
		await pastRacyWindow();
		writeFileSync(join(local, "alpha", "SKILL.md"), skillMd("alpha", "Edited."));
		const again = await discovery.scan();
		expect(loads).toBe(2);
		expect(again.index.get("remote")).toBeDefined();
		expect(again.index.get("alpha")?.properties.description).toBe("Edited.");
	});
});
