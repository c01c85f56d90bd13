import { createSession, estimateTokenizer } from "skillset";
import { describe, expect, it } from "vitest";
import { indexOf, skillMd } from "../helpers/temp.ts";

describe("depends_on obeys disable-model-invocation", () => {
	it.each<["model" | "user", boolean, string | undefined]>([
		["model", false, "not-invocable"],
		["user", true, undefined],
	])("a %s activation of a skill that depends on a user-only skill: ok=%s", async (invoker, ok, code) => {
		const { index } = await indexOf({
			"manual/SKILL.md": skillMd("manual", "Deploys.", "disable-model-invocation: true"),
			"wrapper/SKILL.md": skillMd("wrapper", "Wraps manual.", "depends_on: [manual]"),
		});
		const session = createSession(index, { tokenizer: estimateTokenizer });
		const result = await session.activate("wrapper", { invoker });
		expect(result.ok).toBe(ok);
		if (!result.ok) expect(result.code).toBe(code);
		expect(session.active).toEqual(ok ? ["manual", "wrapper"] : []);
	});
});
