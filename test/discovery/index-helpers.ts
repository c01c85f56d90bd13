import { createHash } from "node:crypto";
import { chmodSync, chownSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DiscoveryReport } from "skillset";

/** The index files in a cache folder's `discovery/` folder (full paths, sorted). */
export function indexFiles(cacheDir: string): string[] {
	let names: string[];
	try {
		names = readdirSync(join(cacheDir, "discovery"));
	} catch {
		return [];
	}
	return names
		.filter((name) => name.endsWith(".json"))
		.sort()
		.map((name) => join(cacheDir, "discovery", name));
}

/** An index file's payload (what follows the header line), parsed. */
export interface IndexPayload {
	format: number;
	key: string;
	dirs: unknown[][];
	files: unknown[][];
	walk: unknown[] | null;
}

/** Reads an index file's payload. */
export function readPayload(file: string): IndexPayload {
	const text = readFileSync(file, "utf8");
	return JSON.parse(text.slice(text.indexOf("\n") + 1)) as IndexPayload;
}

/**
 * Writes `payload` into an index file in place (same inode, owner and mode) with a matching digest: what someone
 * who can write the file could leave there.
 */
export function forgePayload(file: string, payload: unknown): void {
	forgeText(file, JSON.stringify(payload));
}

/** A saved result's payload: its two JSON lines (what it depends on, then its values) as one object. */
export function readResultPayload(file: string): Record<string, unknown> {
	const text = readFileSync(file, "utf8");
	const [head, values] = text.slice(text.indexOf("\n") + 1).split("\n");
	return { ...JSON.parse(head as string), ...JSON.parse(values as string) };
}

/** Writes a saved result's payload (as {@link readResultPayload} gives it) back in place with a matching digest. */
export function forgeResultPayload(file: string, payload: Record<string, unknown>): void {
	const { format, key, checks, walks, ...values } = payload;
	forgeText(file, `${JSON.stringify({ format, key, checks, walks })}\n${JSON.stringify(values)}`);
}

/** Writes `text` as an index file's payload in place with a matching digest. */
export function forgeText(file: string, text: string): void {
	const body = Buffer.from(text);
	const sha256 = createHash("sha256").update(body).digest("hex");
	writeFileSync(
		file,
		Buffer.concat([Buffer.from(`${JSON.stringify({ skillset: "discovery-index", sha256 })}\n`), body]),
	);
}

/** A report without what may differ between a cold and a warm run: timings and reuse counts. */
export function comparable(report: DiscoveryReport): Omit<DiscoveryReport, "timings" | "reused"> {
	const { timings: _timings, reused: _reused, ...rest } = report;
	return rest;
}

/**
 * What may be done to a cache folder that makes it unsafe to trust: a link to a folder elsewhere, writable by its
 * group or by everyone, and (as root) another user's. Each is `[what, attack(folder)]`.
 */
export function folderAttacks(): [string, (folder: string) => void][] {
	const attacks: [string, (folder: string) => void][] = [
		[
			"a link",
			(folder) => {
				renameSync(folder, `${folder}-elsewhere`);
				symlinkSync(`${folder}-elsewhere`, folder);
			},
		],
		["group-writable", (folder) => chmodSync(folder, 0o770)],
		["world-writable", (folder) => chmodSync(folder, 0o707)],
	];
	if (process.getuid?.() === 0) attacks.push(["another user's", (folder) => chownSync(folder, 65534, 65534)]);
	return attacks;
}
