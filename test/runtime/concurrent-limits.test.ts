// Issue 18 (a sibling): activations read their files off the event loop, so two activations can be under way at
// once in one session. The limits hold as they are when an activation commits, not as they were when it started.
import { createSession, estimateTokenizer } from "skillset";
import { describe, expect, it } from "vitest";
import { indexOf, skillMd } from "../helpers/temp.ts";

describe("SkillSession limits under concurrent activations", () => {
	it("never holds more active skills than maxActive", async () => {
		const { index } = await indexOf({
			"a/SKILL.md": skillMd("a"),
			"b/SKILL.md": skillMd("b"),
			"c/SKILL.md": skillMd("c"),
		});
		const session = createSession(index, { maxActive: 1, tokenizer: estimateTokenizer });
		const results = await Promise.all(["a", "b", "c"].map((name) => session.activate(name)));
		expect(results.filter((result) => result.ok)).toHaveLength(1);
		expect(results.filter((result) => !result.ok).map((result) => !result.ok && result.code)).toEqual([
			"limit",
			"limit",
		]);
		expect(session.watermark().active).toBe(1);
	});

	it("never holds more tokens than maxTokens", async () => {
		const body = "word ".repeat(400);
		const { index } = await indexOf({
			"a/SKILL.md": skillMd("a").replace("Steps.", body),
			"b/SKILL.md": skillMd("b").replace("Steps.", body),
		});
		const session = createSession(index, { maxTokens: 700, tokenizer: estimateTokenizer });
		const results = await Promise.all(["a", "b"].map((name) => session.activate(name)));
		expect(results.filter((result) => result.ok)).toHaveLength(1);
		expect(session.watermark().tokens).toBeLessThanOrEqual(700);
	});
});
