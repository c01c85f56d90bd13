// Run by bench/run.ts in a fresh process: the memory a process needs to hold a discovered index (no bodies).
import { discover } from "skillset";

const root = process.argv[2] ?? "";
const before = process.memoryUsage();
const { index } = await discover({
	cwd: root,
	home: root,
	defaultRoots: false,
	roots: [root],
	limits: { maxDirs: 1e6, maxEntries: 1e7 },
});
global.gc?.();
const after = process.memoryUsage();
const mib = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;
console.log(
	JSON.stringify({
		skills: index.size,
		rssMiB: mib(after.rss),
		heapUsedMiB: mib(after.heapUsed),
		indexHeapMiB: mib(after.heapUsed - before.heapUsed),
	}),
);
