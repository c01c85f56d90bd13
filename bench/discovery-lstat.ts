// The warm floor for bench/discovery-warm.ts, run as its own process: walk the tree breadth-first as discovery does
// (skipping hidden folders and node_modules, not descending into a skill folder) and `lstat` every folder and
// SKILL.md, reading no file.
import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";

let level = [process.argv[2] ?? "."];
let files = 0;
while (level.length > 0) {
	const next: string[] = [];
	for (const dir of level) {
		lstatSync(dir);
		const entries = readdirSync(dir, { withFileTypes: true });
		if (entries.some((entry) => entry.name === "SKILL.md")) {
			lstatSync(join(dir, "SKILL.md"));
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
