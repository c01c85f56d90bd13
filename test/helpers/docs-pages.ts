import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The repository's root. */
export const ROOT = join(import.meta.dirname, "..", "..");

/** The documentation a reader has: the README (the front page), then every page under docs/, by path. */
export function docsPages(): { page: string; text: string }[] {
	const pages = readdirSync(join(ROOT, "docs"))
		.filter((name) => name.endsWith(".md"))
		.sort()
		.map((name) => `docs/${name}`);
	return ["README.md", ...pages].map((page) => ({ page, text: readFileSync(join(ROOT, page), "utf8") }));
}

/** All the documentation as one text, for samples that may live on any page. */
export function docsText(): string {
	return docsPages()
		.map(({ text }) => text)
		.join("\n");
}
