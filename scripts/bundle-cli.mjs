// Build step, after tsc: the CLI as a few bundled CommonJS files. On Node 20 (no compile cache) a process pays for
// resolving, loading and linking every module it imports, and an ES module entry starts Node's ES module loader
// (resolve, translate, link, module jobs, and a facade per builtin that reads every export of it, lazy ones too):
// about a third of an empty `scan`. CommonJS chunks skip all of it: `require` of a builtin hands over the object.
// The bundle keeps each command's lazy import (one chunk per lazily loaded part, a dynamic import of a chunk becomes a
// `require` of it when the import runs), so a command loads only what it did before, in fewer files.
//
// `dist/cli/bin.cjs` (the package's `bin`) requires `dist/cli/bundle/skillset.cjs`; `dist/cli/bin.js` stays, an ES
// module importing the same file, for whoever runs `node dist/cli/bin.js`. Every module's `import.meta.url` is
// rewritten to the URL of its own file in `dist/`, which stays in place: the paths a module finds beside itself (the
// vocabulary, package.json, the code folders a cache stamp hashes) are what they were. Packages stay outside: a
// static import of one becomes a `require`, checked below to load as CommonJS (Node 20.0 cannot `require` an ES
// module); a dynamic import of one stays `import()`. `dist/cli/bundle/modules.json` names the modules of each chunk,
// for tests of what a command loads. The library's entries (`skillset`, `skillset/mcp`, ...) stay ES modules.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
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
	// The skill stage's tables alone: a warm run checks a saved result against them and needs no parser.
	{ name: "skill-tables", test: /[\\/]dist[\\/]skill[\\/](codes|yaml-limits)\.js$/ },
	{
		name: "discover",
		test: /[\\/]dist[\\/](cli[\\/](discovery-flags|plain-folder|workspace)|settings[\\/](shape|layers|env-flags|resolve-settings|index)|discovery[\\/](resolve|roots|options|pool|report|skill-index|walk|discover|index|cache-dir|folder|walk-snapshot|cache|codes|signature))\.js$/,
	},
];

/** `import.meta.url` of the module at `id`: its `dist/` file, relative to the chunk (every chunk is in OUT). */
const ownUrl = (id) =>
	`new URL(${JSON.stringify(relative(OUT, id).split(sep).join("/"))}, require("node:url").pathToFileURL(__filename)).href`;

// Its input is tsc's `dist/cli/bin.js`, which the end of this script replaces with a one-line entry: run again
// without tsc, it would bundle its own bundle.
if (readFileSync(join(DIST, "cli", "bin.js"), "utf8").includes("./bundle/skillset.cjs"))
	throw new Error("dist/cli/bin.js is already the bundle's entry: run `npm run build` (tsc first)");

const result = await build({
	input: { skillset: join(DIST, "cli", "bin.js") },
	platform: "node",
	// Packages and Node's own modules stay imports; only this package's files are bundled.
	external: (id) => !id.startsWith(".") && !isAbsolute(id),
	// The skill stage's modules only define things: a chunk importing one value of it (a code table) then does not
	// run the rest of the stage for its effects.
	treeshake: { moduleSideEffects: (id) => !/[\\/]dist[\\/]skill[\\/]/.test(id) },
	plugins: [
		{
			name: "own-url",
			transform(code, id) {
				if (!id.startsWith(DIST) || !code.includes("import.meta")) return null;
				const rewritten = code.replaceAll("import.meta.url", ownUrl(id));
				// Anything else of import.meta (dirname, resolve) has no CommonJS meaning here: stop the build.
				if (rewritten.includes("import.meta")) throw new Error(`${id}: only import.meta.url can be bundled`);
				return { code: rewritten, map: null };
			},
		},
	],
	output: {
		dir: OUT,
		// CommonJS has no top-level await: rolldown refuses to build a module that has one (INVALID_TLA_FORMAT).
		format: "cjs",
		entryFileNames: "[name].cjs",
		chunkFileNames: "[name]-[hash].cjs",
		keepNames: true,
		// The documentation comments stay in the library's files; in the CLI's chunks they were a fifth of what every
		// start-up reads and parses.
		comments: false,
		codeSplitting: { groups: GROUPS },
		cleanDir: true,
	},
});

const requireHere = createRequire(join(DIST, "cli", "bin.js"));
const modules = {};
const chunks = new Set(result.output.map((chunk) => chunk.fileName));
for (const chunk of result.output) {
	if (chunk.type !== "chunk") continue;
	modules[chunk.fileName] = chunk.moduleIds.map((id) => relative(DIST, id).split(sep).join("/"));
	for (const id of chunk.imports) if (!chunks.has(id) && !id.startsWith("node:")) requireCommonJs(id);
}
writeFileSync(join(OUT, "modules.json"), `${JSON.stringify(modules, null, "\t")}\n`);
writeFileSync(join(DIST, "cli", "bin.cjs"), '#!/usr/bin/env node\n"use strict";\nrequire("./bundle/skillset.cjs");\n');
writeFileSync(join(DIST, "cli", "bin.js"), '#!/usr/bin/env node\nimport "./bundle/skillset.cjs";\n');

/** Fails the build when a package the bundle `require`s resolves to an ES module (Node 20.0 cannot require one). */
function requireCommonJs(specifier) {
	const file = requireHere.resolve(specifier);
	const esm =
		file.endsWith(".mjs") || (file.endsWith(".js") && packageType(file) === "module") || !/\.(c?js|json)$/.test(file);
	if (esm) throw new Error(`the CLI bundle requires ${specifier}, which resolves to an ES module (${file})`);
}

/** The "type" of the nearest package.json above `file`. */
function packageType(file) {
	for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
		const manifest = join(dir, "package.json");
		if (existsSync(manifest)) return JSON.parse(readFileSync(manifest, "utf8")).type;
	}
	return undefined;
}
