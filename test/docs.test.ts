import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { blockNames, generatedBlocks, refreshBlocks } from "../scripts/doc-blocks.mjs";

// Issue 25: the pages a newcomer reads stay true: links resolve, generated parts match the code, every public export
// says what it does.

const ROOT = join(import.meta.dirname, "..");
const PAGES = [
	"README.md",
	...readdirSync(join(ROOT, "docs"))
		.filter((name) => name.endsWith(".md"))
		.map((name) => `docs/${name}`),
];
const text = (page: string) => readFileSync(join(ROOT, page), "utf8");

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
	const seen = new Map<string, number>();
	const out = new Set<string>();
	for (const [, heading = ""] of outsideFences(markdown).matchAll(/^#{1,6} (.+)$/gm)) {
		const base = heading
			.trim()
			.toLowerCase()
			.replace(/[^\p{L}\p{N}\s_-]/gu, "")
			.replace(/\s/g, "-");
		const n = seen.get(base) ?? 0;
		seen.set(base, n + 1);
		out.add(n === 0 ? base : `${base}-${n}`);
	}
	for (const [, id = ""] of markdown.matchAll(/<a (?:id|name)="([^"]+)"/g)) out.add(id);
	return out;
}

/** The Markdown with fenced code blocks blanked (a `#` comment in a shell sample is not a heading). */
function outsideFences(markdown: string): string {
	return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, "");
}

/** Every link target in `markdown` that is not a URL with a scheme: `[text](target)` and `<a href="target">`. */
function relativeLinks(markdown: string): string[] {
	const prose = outsideFences(markdown).replace(/`[^`\n]*`/g, "");
	const targets = [
		...[...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1] ?? ""),
		...[...prose.matchAll(/<a [^>]*href="([^"]+)"/g)].map((m) => m[1] ?? ""),
	];
	return targets.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe("documentation pages", () => {
	it.each(PAGES)("%s: every relative link and anchor resolves", (page) => {
		for (const link of relativeLinks(text(page))) {
			const [path = "", fragment] = link.split("#");
			const target = path === "" ? join(ROOT, page) : resolve(dirname(join(ROOT, page)), decodeURI(path));
			expect(existsSync(target), `${page} links to ${link}, which does not exist`).toBe(true);
			expect(relative(ROOT, target).startsWith(".."), `${page} links outside the repository: ${link}`).toBe(false);
			if (fragment === undefined || !statSync(target).isFile() || !target.endsWith(".md")) continue;
			expect([...anchors(readFileSync(target, "utf8"))], `${page} links to a missing heading: ${link}`).toContain(
				fragment,
			);
		}
	});

	it("the link check catches a missing page, a missing heading and a link out of the repository", () => {
		const page = "# Title\n\n## A `code` heading: yes\n\n```sh\n# not a heading\n```\n";
		expect([...anchors(page)]).toEqual(["title", "a-code-heading-yes"]);
		const links = relativeLinks("[a](docs/x.md#y) [b](https://e.com) `[c](no.md)` [d](#title)\n```\n[e](f.md)\n```\n");
		expect(links).toEqual(["docs/x.md#y", "#title"]);
	});

	it("every generated block matches the code it is generated from (run `npm run docs` to update)", async () => {
		const blocks = await generatedBlocks();
		const found = PAGES.flatMap((page) => blockNames(text(page)));
		expect(found.sort()).toEqual([...blocks.keys()].sort());
		for (const page of PAGES) expect(refreshBlocks(text(page), blocks, page), page).toBe(text(page));
	});

	it("every public export has a doc comment (TypeDoc builds the API reference from them)", { timeout: 180_000 }, () => {
		const pkg = JSON.parse(text("package.json")) as { exports: Record<string, { "skillset-source": string }> };
		const entries = Object.values(pkg.exports).map((entry) => join(ROOT, entry["skillset-source"]));
		const options = { allowImportingTsExtensions: true, noEmit: true, skipLibCheck: true, types: ["node"] };
		const program = ts.createProgram(entries, {
			...options,
			module: ts.ModuleKind.NodeNext,
			moduleResolution: ts.ModuleResolutionKind.NodeNext,
			target: ts.ScriptTarget.ES2022,
		});
		const checker = program.getTypeChecker();
		const missing: string[] = [];
		for (const entry of entries) {
			const file = program.getSourceFile(entry);
			const module = file && checker.getSymbolAtLocation(file);
			expect(module, entry).toBeDefined();
			for (const symbol of module ? checker.getExportsOfModule(module) : []) {
				const real = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
				if (ts.displayPartsToString(real.getDocumentationComment(checker)).trim() === "")
					missing.push(`${relative(ROOT, entry)}: ${symbol.name}`);
			}
		}
		expect(missing).toEqual([]);
	});
});
