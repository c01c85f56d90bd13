// `npm run docs`: regenerates every generated block in README.md and docs/*.md (the diagnostic code tables, the CLI
// reference from each command's --help), then builds the API reference from the TSDoc comments into docs/api/
// (TypeDoc; any warning, such as an undocumented export or a broken link, fails the build).
// `--pages` stops after the pages. `--check` writes nothing: it fails when a page is stale or TypeDoc warns (CI).
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { generatedBlocks, refreshBlocks } from "./doc-blocks.mjs";

const root = new URL("../", import.meta.url);
const check = process.argv.includes("--check");
const docs = readdirSync(new URL("docs/", root)).filter((name) => name.endsWith(".md"));
const pages = ["README.md", ...docs.map((name) => `docs/${name}`)];
const blocks = await generatedBlocks();
const stale = [];
for (const page of pages) {
	const url = new URL(page, root);
	const text = readFileSync(url, "utf8");
	const fresh = refreshBlocks(text, blocks, page);
	if (fresh === text) continue;
	stale.push(page);
	if (!check) writeFileSync(url, fresh);
	console.log(check ? `stale: ${page} (run npm run docs)` : `updated ${page}`);
}
if (!process.argv.includes("--pages")) {
	const typedoc = new URL("node_modules/typedoc/bin/typedoc", root).pathname;
	execFileSync(process.execPath, [typedoc, ...(check ? ["--emit", "none"] : [])], { cwd: root, stdio: "inherit" });
}
if (check && stale.length > 0) process.exit(1);
