// The `skillset/cli` subpath: run the CLI in-process with your own I/O (tests, embedding).

export type { CliIo, CommandResult, Rendered, Style } from "./io.ts";
export { processIo, UsageError } from "./io.ts";
export type { CommandModule } from "./main.ts";
export { EXIT_INTERNAL_ERROR, runCli } from "./main.ts";
