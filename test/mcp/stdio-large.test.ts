// Issue 23: over stdio, a large `resources/read` answer is written in slices. The parts joined must be the very line
// the SDK would write (`JSON.stringify` and a newline), whatever a slice boundary cuts: here surrogate pairs that
// straddle every slice boundary, and every character JSON escapes.
import { describe, expect, it } from "vitest";
import { splitLarge, stringSlices } from "../../src/mcp/stdio-large.ts";

const CONTROLS = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join("");

function joined(message: Parameters<typeof splitLarge>[0]): string | undefined {
	const split = splitLarge(message);
	return split && split.before + [...stringSlices(split.value)].join("") + split.after;
}

describe("a large stdio answer in slices", () => {
	it("joins to exactly the SDK's line for text with pairs across slice boundaries and escapes", () => {
		// One character first, so every 64 Ki-character boundary falls inside a pair.
		const text = `a${"😀".repeat(200_000)}${CONTROLS}"\\\u2028é${"x".repeat(300_000)}`;
		const message = {
			jsonrpc: "2.0" as const,
			id: 4,
			result: { contents: [{ uri: "skill://big/a.md", mimeType: "text/markdown", text }] },
		};
		expect(joined(message)).toBe(`${JSON.stringify(message)}\n`);
	});

	it("joins to exactly the SDK's line for a base64 blob beside a small content", () => {
		const blob = Buffer.alloc(1024 * 1024, 7).toString("base64");
		const message = {
			jsonrpc: "2.0" as const,
			id: "r-1",
			result: {
				contents: [
					{ uri: "skill://a/x", text: "small" },
					{ uri: "skill://a/b.bin", blob },
				],
				_meta: {},
			},
		};
		expect(joined(message)).toBe(`${JSON.stringify(message)}\n`);
	});

	it("leaves small answers, requests and notifications to the SDK", () => {
		const small = { jsonrpc: "2.0" as const, id: 1, result: { contents: [{ uri: "skill://a/x", text: "hi" }] } };
		expect(splitLarge(small)).toBeUndefined();
		const request = { jsonrpc: "2.0" as const, id: 2, method: "ping" };
		expect(splitLarge(request)).toBeUndefined();
		const notification = {
			jsonrpc: "2.0" as const,
			method: "notifications/message",
			params: { data: "x".repeat(1e6) },
		};
		expect(splitLarge(notification)).toBeUndefined();
	});
});
