// Build step, after tsc: the CLI as a few bundled files. On Node 20 (no compile cache) a process pays for resolving,
// loading and linking every module it imports, about a third of an empty `scan`. The bundle keeps each command's
// lazy import (one chunk per lazily loaded part), so a command loads only what it did before, in fewer files.
//
// `dist/cli/bin.js` becomes a one-line entry importing `dist/cli/bundle/skillset.js`. Every module's
// `import.meta.url` is rewritten to the URL of its own file in `dist/`, which stays in place: the paths a module
// finds beside itself (the vocabulary, package.json, the code folders a cache stamp hashes) are what they were.
// `dist/cli/bundle/modules.json` names the modules of each chunk, for tests of what a command loads.
import { writeFileSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";
import { build } from "rolldown";

const DIST = join(import.meta.dirname, "..", "dist");
const OUT = join(DIST, "cli", "bundle");

// Modules that load together go in one chunk. Every command loads the CLI's core; every command that discovers loads
// discovery, settings and the workspace flags. Kept apart: `validate` of one skill loads no discovery, and an empty
// `scan` no skill stage (test/cli/startup.test.ts).
const GROUPS = [
	{
		name: "core",
		test: /[\\/]dist[\\/](cli[\\/](io|main|terminal-text|paths|render-bounds|render-diagnostics)|skill[\\/]errors)\.js$/,
	},
	{
		name: "discover",
		test: /[\\/]dist[\\/](cli[\\/](discovery-flags|plain-folder|workspace)|settings[\\/](shape|layers|env-flags|resolve-settings|index)|discovery[\\/](resolve|roots|options|pool|report|skill-index|walk|discover|index|cache-dir|folder|walk-snapshot|cache|codes))\.js$/,
	},
];

/** `import.meta.url` of the module at `id`, written relative to a chunk in OUT (every chunk is there, none deeper). */
const ownUrl = (id) => `new URL(${JSON.stringify(relative(OUT, id).split(sep).join("/"))}, import.meta.url).href`;

const result = await build({
	input: { skillset: join(DIST, "cli", "bin.js") },
	platform: "node",
	// Packages and Node's own modules stay imports; only this package's files are bundled.
	external: (id) => !id.startsWith(".") && !isAbsolute(id),
	plugins: [
		{
			name: "own-url",
			transform(code, id) {
				if (!id.startsWith(DIST) || !code.includes("import.meta.url")) return null;
				return { code: code.replaceAll("import.meta.url", ownUrl(id)), map: null };
			},
		},
	],
	output: {
		dir: OUT,
		format: "esm",
		entryFileNames: "[name].js",
		chunkFileNames: "[name]-[hash].js",
		keepNames: true,
		codeSplitting: { groups: GROUPS },
		cleanDir: true,
	},
});

const modules = {};
for (const chunk of result.output) {
	if (chunk.type === "chunk")
		modules[chunk.fileName] = chunk.moduleIds.map((id) => relative(DIST, id).split(sep).join("/"));
}
writeFileSync(join(OUT, "modules.json"), `${JSON.stringify(modules, null, "\t")}\n`);
writeFileSync(join(DIST, "cli", "bin.js"), '#!/usr/bin/env node\nimport "./bundle/skillset.js";\n');
