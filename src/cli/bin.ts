#!/usr/bin/env node
import module from "node:module";

// Node 22.1+ can keep the compiled code of the modules below on disk, so the next run skips compiling them; Node 20
// has no such cache (the call is absent there). Node picks the folder (NODE_COMPILE_CACHE, else its own under the
// temp folder) and NODE_DISABLE_COMPILE_CACHE=1 turns it off. The CLI's own modules are imported after this line,
// not statically, so that they are the ones cached.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

const { processIo, readerGone } = await import("./io.ts");
const { runCli } = await import("./main.ts");
const status = await runCli(process.argv.slice(2), processIo());
// A reader that went away (`| head -1`) took what it wanted: that is no failure of the command.
process.exitCode = readerGone() ? 0 : status;
