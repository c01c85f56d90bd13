#!/usr/bin/env node
import { processIo, readerGone } from "./io.ts";
import { runCli } from "./main.ts";

const status = await runCli(process.argv.slice(2), processIo());
// A reader that went away (`| head -1`) took what it wanted: that is no failure of the command.
process.exitCode = readerGone() ? 0 : status;
