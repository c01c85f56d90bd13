import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { docsPages } from "./helpers/docs-pages.ts";

// Issue 20 §3 (and 25): every TypeScript sample in the README and docs/ compiles as a user pastes it, each a module of its own, under
// `strict`, against the SDK versions package.json pins (openai, @anthropic-ai/sdk) and skillset's built types.

const ROOT = join(import.meta.dirname, "..");
const samples = docsPages().flatMap(({ page, text }) =>
	[...text.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((match) => ({
		page,
		line: text.slice(0, match.index).split("\n").length,
		text: match[1] ?? "",
	})),
);

/** What a user's project has: strict, Node's ESM resolution, no project-only options. */
const OPTIONS: ts.CompilerOptions = {
	strict: true,
	target: ts.ScriptTarget.ES2022,
	lib: ["lib.es2023.d.ts"],
	module: ts.ModuleKind.NodeNext,
	moduleResolution: ts.ModuleResolutionKind.NodeNext,
	types: ["node"],
	skipLibCheck: true,
	noEmit: true,
};

/** Type-checks the samples as files in the checkout (so `skillset` resolves to itself), never written to disk. */
function typeCheck(files: ReadonlyMap<string, string>): ts.Diagnostic[] {
	const host = ts.createCompilerHost(OPTIONS);
	const { fileExists, readFile, getSourceFile } = host;
	host.fileExists = (name) => files.has(name) || fileExists.call(host, name);
	host.readFile = (name) => files.get(name) ?? readFile.call(host, name);
	host.getSourceFile = (name, language, ...rest) => {
		const text = files.get(name);
		return text === undefined
			? getSourceFile.call(host, name, language, ...rest)
			: ts.createSourceFile(name, text, language, true);
	};
	const program = ts.createProgram([...files.keys()], OPTIONS, host);
	return [...ts.getPreEmitDiagnostics(program)];
}

describe("README TypeScript samples (issue 20)", () => {
	it("has samples, among them the OpenAI Chat Completions loop and the Anthropic round", () => {
		expect(samples.length).toBeGreaterThanOrEqual(4);
		expect(samples.some((s) => s.text.includes("openai.chat.completions.create"))).toBe(true);
		expect(samples.some((s) => s.text.includes("anthropic.messages.create"))).toBe(true);
	});

	it("each compiles on its own under strict against the pinned SDKs (a broken control sample must fail)", () => {
		const files = new Map(
			samples.map((s) => [join(ROOT, `${s.page.replace(/\W/g, "-")}-sample-line-${s.line}.mts`), s.text]),
		);
		// The check can fail: a sample with a type error, checked in the same program, is reported.
		const control = join(ROOT, "readme-sample-control.mts");
		files.set(control, 'import { discover } from "skillset";\nawait discover({ cwd: 42 });\n');
		const diagnostics = typeCheck(files);
		expect(diagnostics.filter((d) => d.file?.fileName === control).length).toBeGreaterThan(0);
		const problems = diagnostics
			.filter((d) => d.file?.fileName !== control)
			.map((d) => {
				const where = d.file ? d.file.getLineAndCharacterOfPosition(d.start ?? 0) : undefined;
				const name = d.file ? d.file.fileName.replace(`${ROOT}/`, "") : "";
				return `${name}:${where ? where.line + 1 : "?"}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
			});
		expect(problems).toEqual([]);
	}, 120_000);
});
