// The `sandbox/` stage: running a shell command under the OS sandbox (bubblewrap on Linux), finding out whether one
// is available, and its limits. Later stages import only from this file.

export type { SandboxOptions, SandboxResult } from "./sandbox.ts";
export { detectSandbox, runSandboxed } from "./sandbox.ts";
