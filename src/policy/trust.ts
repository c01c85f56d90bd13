import { mkdir, open, readFile, rm, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { writeFileAtomic } from "../runtime/index.ts";

/** The trust store's file: workspaces the user trusts (their skills may reach the catalog). */
export interface TrustFile {
	version: 1;
	workspaces: Record<string, { trusted: boolean; at: string }>;
}

/**
 * A per-user record of trusted workspaces. Each change takes a lock file, re-reads the store, applies the one
 * change and writes atomically (a temporary file, then a rename), so two processes never lose each other's updates.
 */
export interface TrustStore {
	readonly file: string;
	/** True when `dir` or an ancestor is trusted and no nearer entry untrusts it. Only `trusted: true` trusts. */
	isTrusted(dir: string): boolean;
	trust(dir: string): Promise<void>;
	untrust(dir: string): Promise<void>;
	list(): { path: string; trusted: boolean; at: string }[];
}

/** `$XDG_CONFIG_HOME/skillset/trust.json`, else `~/.config/skillset/trust.json`. */
export function defaultTrustFile(
	env: Readonly<Record<string, string | undefined>> = process.env,
	home: string = homedir(),
): string {
	return join(env.XDG_CONFIG_HOME ?? join(home, ".config"), "skillset", "trust.json");
}

const LOCK_ATTEMPTS = 500;
const STALE_LOCK_MS = 10_000;

/** Loads the store (an absent file is an empty store; a broken one is an error that names the file). */
export async function loadTrustStore(file: string = defaultTrustFile()): Promise<TrustStore> {
	let data = await readStore(file);
	const set = async (dir: string, trusted: boolean) => {
		await withLock(file, async () => {
			const fresh = await readStore(file);
			fresh.workspaces[resolve(dir)] = { trusted, at: new Date().toISOString() };
			await writeFileAtomic(file, `${JSON.stringify(fresh, null, 2)}\n`, { mode: 0o600 });
			data = fresh;
		});
	};
	return {
		file,
		isTrusted(dir) {
			for (let current = resolve(dir); ; current = dirname(current)) {
				const entry = Object.hasOwn(data.workspaces, current) ? data.workspaces[current] : undefined;
				if (entry) return entry.trusted === true;
				if (dirname(current) === current) return false;
			}
		},
		trust: (dir) => set(dir, true),
		untrust: (dir) => set(dir, false),
		list: () =>
			Object.entries(data.workspaces)
				.map(([path, entry]) => ({ path, trusted: entry.trusted === true, at: String(entry.at) }))
				.sort((a, b) => (a.path < b.path ? -1 : 1)),
	};
}

async function readStore(file: string): Promise<TrustFile> {
	let text: string;
	try {
		text = await readFile(file, "utf8");
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return { version: 1, workspaces: {} };
		throw new Error(`${file}: ${(error as Error).message}`);
	}
	try {
		const parsed = JSON.parse(text) as Partial<TrustFile>;
		const workspaces = parsed.workspaces;
		if (parsed.version !== 1 || typeof workspaces !== "object" || workspaces === null || Array.isArray(workspaces)) {
			throw new Error("expected { version: 1, workspaces: { ... } }");
		}
		// Entries are kept as they are; anything but `trusted: true` reads as untrusted.
		const entries = Object.entries(workspaces).map(([path, entry]) => [
			path,
			typeof entry === "object" && entry !== null ? entry : { trusted: false, at: "" },
		]);
		return { version: 1, workspaces: Object.fromEntries(entries) };
	} catch (error) {
		throw new Error(`${file}: ${(error as Error).message}`);
	}
}

/**
 * Runs `work` holding `<file>.lock` (created exclusively). Waits for another holder, and breaks a lock older than
 * ten seconds (left by a process that died); gives up with an error naming the lock after about ten seconds.
 */
async function withLock(file: string, work: () => Promise<void>): Promise<void> {
	const lock = `${file}.lock`;
	await mkdir(dirname(file), { recursive: true });
	for (let attempt = 0; ; attempt++) {
		try {
			const handle = await open(lock, "wx", 0o600);
			await handle.close();
			break;
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
			if (attempt >= LOCK_ATTEMPTS) {
				throw new Error(`${file}: the trust store stays locked by ${lock}; remove it if no skillset is running`);
			}
			await breakStale(lock);
			await new Promise((done) => setTimeout(done, 5 + Math.random() * 20));
		}
	}
	try {
		await work();
	} finally {
		await rm(lock, { force: true });
	}
}

async function breakStale(lock: string): Promise<void> {
	try {
		if (Date.now() - (await stat(lock)).mtimeMs > STALE_LOCK_MS) await rm(lock, { force: true });
	} catch (error) {
		// The holder released it meanwhile.
		if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
	}
}
