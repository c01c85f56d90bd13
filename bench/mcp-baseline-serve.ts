// The baseline of bench/mcp.ts in a process of its own: `node mcp-baseline-serve.js ROOT`. It says where it listens
// on stderr the way `skillset mcp --http` does, and runs until it is stopped.
import { startBaseline } from "./mcp-baseline.ts";

const root = process.argv[2];
if (root === undefined) throw new Error("usage: node mcp-baseline-serve.js ROOT");
const { url } = await startBaseline(root);
process.stderr.write(`mcp-baseline: listening on ${url}\n`);
