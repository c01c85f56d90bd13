#!/usr/bin/env node

// Node 22.3+ can keep the compiled code of the modules below on disk, so the next run skips compiling them (22.1 has
// the cache, 22.3 `process.getBuiltinModule` to reach it without an import); Node 20 has no such cache, and there not
// even `node:module` is loaded for it (start-up pays for every module). Node picks the folder (NODE_COMPILE_CACHE,
// else its own under the temp folder) and NODE_DISABLE_COMPILE_CACHE=1 turns it off.
// The CLI's own modules are loaded after this, not statically, so that they are the ones cached.
if (Number(process.versions.node.split(".")[0]) >= 22) {
	const builtin = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule?.("node:module");
	(builtin as { enableCompileCache?: () => unknown } | undefined)?.enableCompileCache?.();
}

// No top-level await: the build bundles this entry as CommonJS (scripts/bundle-cli.mjs), where there is none.
void Promise.all([import("./io.ts"), import("./main.ts")]).then(async ([io, { runCli }]) => {
	const status = await runCli(process.argv.slice(2), io.processIo());
	const failed = io.outputError();
	if (failed) {
		process.stderr.write(`skillset: cannot write output: ${failed.code ?? failed.message}\n`);
		process.exitCode = 1;
		return;
	}
	// A reader that went away (`| head -1`) took what it wanted: that is no failure of the command.
	process.exitCode = io.readerGone() ? 0 : status;
});
