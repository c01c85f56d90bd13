import { existsSync, realpathSync } from "node:fs";
import { mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import type { DiscoveryDiagnostic, OriginLoad } from "../discovery/index.ts";
import { hashPackage, packageDigest, readRegularFile, sha256 } from "../runtime/index.ts";
import { isValidSkillName } from "../skill/index.ts";
import { realPathInside } from "./inside.ts";

/** The largest state file read: a FIFO, a device or a huge file in its place is an unreadable state. */
export const MAX_STATE_BYTES: number = 16 << 20;

/** The folder for verified remote copies: `SKILLSET_CACHE_DIR`, else `$XDG_CACHE_HOME/skillset`, else `~/.cache/skillset`. */
export function defaultCacheDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
	if (env.SKILLSET_CACHE_DIR) return env.SKILLSET_CACHE_DIR;
	return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), ".cache"), "skillset");
}

/** One verified remote skill as cached: where its files are and the digests they were verified against. */
export interface CachedSkill {
	name: string;
	/** Its folder under the origin's skills folder: `<package digest hex>/<name>`. */
	dir: string;
	/** Package digest over every file (as the lock computes it). */
	digest: string;
	/** Path → sha256 hex and size, as verified when fetched. */
	files: Record<string, { sha256: string; size: number }>;
	/** What the origin published for it: an artifact digest (index) or the resource set (MCP), for change checks. */
	published: string;
	fetchedAt: string;
}

/** What the cache remembers of one origin. */
export interface OriginState {
	origin: string;
	url: string;
	refreshedAt?: string;
	/** For an index: the shape it was last read in (`IndexShape`), which `skillset sources` shows. */
	shape?: string;
	skills: Record<string, CachedSkill>;
}

/**
 * The verified copies of one origin: content-addressed folders under `<cache>/origins/<key>/skills`, outside every
 * discovery root, and a state file naming the current copy of each skill. Copies are written to a temporary
 * folder and renamed, so a reader never sees half a skill.
 */
export class OriginCache {
	readonly folder: string;
	readonly skillsFolder: string;
	readonly #stateFile: string;
	readonly #origin: string;
	readonly #cacheDir: string;

	constructor(cacheDir: string, origin: string, url: string) {
		this.#origin = origin;
		const key = `${origin.replace(/[^a-z0-9._-]/gi, "_")}-${sha256(new TextEncoder().encode(url)).slice(0, 12)}`;
		// The cache folder at its real path (a user's cache folder may be a link): verified copies are read through
		// the contained reader, which compares against the kernel's path of each folder.
		this.#cacheDir = realPrefix(cacheDir);
		this.folder = join(this.#cacheDir, "origins", key);
		this.skillsFolder = join(this.folder, "skills");
		this.#stateFile = join(this.folder, "state.json");
	}

	/** The remembered state; empty when nothing was cached (or the state file is unreadable). */
	async read(origin: string, url: string): Promise<OriginState> {
		try {
			const state = JSON.parse(await readRegularFile(this.#stateFile, MAX_STATE_BYTES)) as OriginState;
			if (state.origin === origin && state.url === url && typeof state.skills === "object") return state;
		} catch {
			// No state yet, or a broken one: start empty; verified copies are re-fetched.
		}
		return { origin, url, skills: {} };
	}

	/** Stores verified files (path → bytes) as the copy of `name`; returns its record. */
	async store(name: string, files: ReadonlyMap<string, Uint8Array>, published: string): Promise<CachedSkill> {
		// The name becomes a folder: only a spec name (lowercase letters, digits, hyphens) can never climb out.
		if (!isValidSkillName(name)) throw new Error(`'${name}' is not a valid skill name`);
		const pins: CachedSkill["files"] = Object.create(null);
		for (const [path, bytes] of files) {
			if (path.split("/").some((part) => part === "" || part === "." || part === ".." || part.includes("\0"))) {
				throw new Error(`${JSON.stringify(path)} is not a plain relative path`);
			}
			pins[path] = { sha256: sha256(bytes), size: bytes.length };
		}
		const digest = packageDigest(pins);
		const dir = `${digest.slice(7)}/${name}`;
		const target = join(this.skillsFolder, ...dir.split("/"));
		const record: CachedSkill = { name, dir, digest, files: pins, published, fetchedAt: new Date().toISOString() };
		if (this.verify(record)) return record;
		await this.#checkFolder(dirname(target));
		await mkdir(dirname(target), { recursive: true });
		const temp = await mkdtemp(join(dirname(target), `.${name}.`));
		try {
			for (const [path, bytes] of files) {
				const file = join(temp, ...path.split("/"));
				await mkdir(dirname(file), { recursive: true });
				await writeFile(file, bytes, { flag: "wx", mode: 0o644 });
			}
			await rm(target, { recursive: true, force: true });
			await rename(temp, target);
		} finally {
			await rm(temp, { recursive: true, force: true });
		}
		return record;
	}

	/** True when the cached copy's files are exactly the recorded ones (nothing changed, added or missing). */
	verify(record: CachedSkill): boolean {
		// The state file is data: its record must be self-consistent (the folder named by the digest and a spec name,
		// the pins hashing to that digest) before any folder it names is looked at.
		const consistent =
			typeof record.name === "string" &&
			isValidSkillName(record.name) &&
			typeof record.digest === "string" &&
			/^sha256:[0-9a-f]{64}$/.test(record.digest) &&
			record.dir === `${record.digest.slice(7)}/${record.name}` &&
			typeof record.files === "object" &&
			record.files !== null &&
			packageDigest(record.files) === record.digest;
		if (!consistent) return false;
		const dir = join(this.skillsFolder, ...record.dir.split("/"));
		if (!existsSync(dir)) return false;
		const hashed = hashPackage(dir);
		return hashed.problems.length === 0 && hashed.digest === record.digest;
	}

	/**
	 * What discovery gets from this origin: the current copies that still verify (a copy changed on disk is refused,
	 * never served), with their pins, and a note when they serve because the origin could not be reached (`stale`).
	 */
	serve(skills: Record<string, CachedSkill>, diagnostics: DiscoveryDiagnostic[], stale: boolean): OriginLoad {
		const served: OriginLoad["skills"] = [];
		for (const record of Object.values(skills)) {
			if (this.verify(record)) served.push({ dir: record.dir, pins: record.files });
			else {
				const message = `${record.name}: the cached copy no longer matches its digests`;
				diagnostics.push({ code: "origin.refused", severity: "error", message, file: this.#origin });
			}
		}
		if (stale && served.length > 0) {
			const message = `${served.length} ${served.length === 1 ? "skill" : "skills"} served from the last verified copies`;
			diagnostics.push({ code: "origin.cached", severity: "info", message, file: this.#origin });
		}
		return { folder: this.skillsFolder, skills: served, diagnostics };
	}

	/** Refuses to write below a folder of the cache that a link leads out of the cache (a planted `skills` link). */
	async #checkFolder(folder: string): Promise<void> {
		await mkdir(this.#cacheDir, { recursive: true });
		await realPathInside(this.#cacheDir, relative(this.#cacheDir, folder), "install.outside");
	}

	/** Records the current copies and the time of this refresh. */
	async save(state: OriginState): Promise<void> {
		await this.#checkFolder(this.folder);
		await mkdir(this.folder, { recursive: true });
		const temp = `${this.#stateFile}.${process.pid}.${Date.now()}`;
		try {
			await writeFile(temp, `${JSON.stringify(state, null, 2)}\n`, { flag: "wx" });
			await rename(temp, this.#stateFile);
		} finally {
			await rm(temp, { force: true });
		}
	}
}

/** The real path of `path`'s nearest existing ancestor, with the rest joined as it is. */
function realPrefix(path: string): string {
	const rest: string[] = [];
	for (let current = resolve(path); ; current = dirname(current)) {
		try {
			return join(realpathSync(current), ...rest.reverse());
		} catch {
			// Not there yet (or unreadable): resolve its parent, keep this part as named.
			if (dirname(current) === current) return resolve(path);
			rest.push(basename(current));
		}
	}
}
