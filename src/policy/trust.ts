import { mkdir, readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { writeFileAtomic } from "../runtime/index.ts";

/** The trust store's file: workspaces the user trusts (their skills may reach the catalog). */
export interface TrustFile {
	version: 1;
	workspaces: Record<string, { trusted: boolean; at: string }>;
}

/** A per-user record of trusted workspaces. Writes are atomic (a temporary file, then a rename). */
export interface TrustStore {
	readonly file: string;
	/** True when `dir` or an ancestor is trusted and no nearer entry untrusts it. */
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

/** Loads the store (an absent file is an empty store; a broken one is an error that names the file). */
export async function loadTrustStore(file: string = defaultTrustFile()): Promise<TrustStore> {
	let data: TrustFile = { version: 1, workspaces: {} };
	try {
		const parsed = JSON.parse(await readFile(file, "utf8")) as Partial<TrustFile>;
		if (parsed.version !== 1 || typeof parsed.workspaces !== "object" || parsed.workspaces === null) {
			throw new Error("expected { version: 1, workspaces: { ... } }");
		}
		data = parsed as TrustFile;
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw new Error(`${file}: ${(error as Error).message}`);
	}
	const save = async () => {
		await mkdir(dirname(file), { recursive: true });
		await writeFileAtomic(file, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
	};
	const set = async (dir: string, trusted: boolean) => {
		data.workspaces[resolve(dir)] = { trusted, at: new Date().toISOString() };
		await save();
	};
	return {
		file,
		isTrusted(dir) {
			for (let current = resolve(dir); ; current = dirname(current)) {
				const entry = data.workspaces[current];
				if (entry) return entry.trusted;
				if (dirname(current) === current) return false;
			}
		},
		trust: (dir) => set(dir, true),
		untrust: (dir) => set(dir, false),
		list: () =>
			Object.entries(data.workspaces)
				.map(([path, entry]) => ({ path, ...entry }))
				.sort((a, b) => (a.path < b.path ? -1 : 1)),
	};
}
