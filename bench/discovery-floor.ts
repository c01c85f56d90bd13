// The floor for bench/discovery-fast.ts, run as its own process: walk the tree breadth-first as discovery does
// (skipping hidden folders and node_modules, not descending into a skill folder) and read every SKILL.md whole,
// without parsing anything.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

let level = [process.argv[2] ?? "."];
let files = 0;
while (level.length > 0) {
	const next: string[] = [];
	for (const dir of level) {
		const entries = readdirSync(dir, { withFileTypes: true });
		if (entries.some((entry) => entry.name === "SKILL.md")) {
			readFileSync(join(dir, "SKILL.md"));
			files++;
			continue;
		}
		for (const entry of entries) {
			if (entry.isDirectory() && !entry.name.startsWith(".") && entry.name !== "node_modules") {
				next.push(join(dir, entry.name));
			}
		}
	}
	level = next;
}
process.stdout.write(`${files}\n`);
