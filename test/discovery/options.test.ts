import { buildCatalog, createDiscovery, discover, SkillsetError } from "skillset";
import { describe, expect, it } from "vitest";
import { indexOf, skillMd } from "../helpers/temp.ts";

// Issue 9: JavaScript callers get no type check, so library options are checked at run time like the CLI's.
describe("discover options", () => {
	it.each([
		[{ policy: "first" }, "policy must be one of precedence"],
		[{ roots: "skills" }, 'roots must be a list, not "skills"'],
		[{ roots: ["ok", 3] }, "roots[1] must be a non-empty string"],
		[{ presets: ["emacs"] }, "presets[0] must be one of claude"],
		[{ limits: { maxDepht: 3 } }, "limits.maxDepht must be one of maxDepth, maxDirs, maxEntries"],
		[{ includeHidden: "yes" }, "includeHidden must be true or false"],
	])("rejects %j with a SkillsetError naming the option", async (options, message) => {
		const error = await discover(options as never).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(SkillsetError);
		expect(error).toMatchObject({ code: "invalid-option" });
		expect((error as Error).message).toContain(message);
		expect(() => createDiscovery(options as never)).toThrow(SkillsetError);
	});
});

describe("buildCatalog options", () => {
	it.each([
		[{ format: "yml" }, "format must be one of xml, markdown, json"],
		[{ budget: { token: 4000 } }, "budget must be an object with tokens, chars or contextWindow"],
		[{ budget: { tokens: "4000" } }, "budget.tokens must be a positive number"],
		[{ location: "yes" }, "location must be true or false"],
	])("rejects %j with a SkillsetError naming the option", async (options, message) => {
		const { index } = await indexOf({ "a/SKILL.md": skillMd("a") });
		const error = await buildCatalog(index, options as never).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(SkillsetError);
		expect((error as Error).message).toContain(message);
	});
});

describe("includeHidden", () => {
	it("scans hidden folders below a root only when asked, keeping .git skipped (issue 9)", async () => {
		const { root } = await indexOf({
			".curated/kept/SKILL.md": skillMd("kept"),
			".git/not-a-skill/SKILL.md": skillMd("not-a-skill"),
			"plain/SKILL.md": skillMd("plain"),
		});
		const names = async (includeHidden: boolean) =>
			(await discover({ cwd: root, home: root, defaultRoots: false, roots: [root], includeHidden })).index.skills.map(
				(s) => s.name,
			);
		expect(await names(false)).toEqual(["plain"]);
		expect(await names(true)).toEqual(["kept", "plain"]);
	});
});
