import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { FilePin, IndexedSkill } from "../discovery/index.ts";
import { withFileLock, writeFileAtomic } from "../runtime/index.ts";
import type { PermissionManifest } from "../skill/index.ts";

/** The trust store's file: workspaces the user trusts, and remote skills the user approved. */
export interface TrustFile {
	version: 1;
	workspaces: Record<string, { trusted: boolean; at: string }>;
	/** Approvals of remote skills by qualified name (`name@mcp:label`). Absent in stores written before them. */
	skills?: Record<string, SkillApproval>;
}

/**
 * The user's approval of one remote skill, bound to its full resource set at approval time (every path with its
 * digest) and to what it declared then, so that a later version can be shown as a permission diff.
 */
export interface SkillApproval {
	files: Record<string, FilePin>;
	allowedTools?: string[];
	manifest?: PermissionManifest;
	/** ISO 8601 time of the approval. */
	at: string;
}

/** What is needed to approve a remote skill: its qualified name, origin, pins and declarations. */
export type ApprovalSubject = Pick<IndexedSkill, "qualifiedName" | "origin" | "pins" | "properties">;

/** Where approvals are looked up: {@link TrustStore} is one; a host may pass its own. */
export interface SkillApprovals {
	/** The recorded approval of a remote skill by its qualified name, or `undefined` when it has none. */
	skillApproval(qualifiedName: string): SkillApproval | undefined;
}

/**
 * A per-user record of trusted workspaces. Each change takes a lock file, re-reads the store, applies the one
 * change and writes atomically (a temporary file, then a rename), so two processes never lose each other's updates.
 */
export interface TrustStore extends SkillApprovals {
	readonly file: string;
	/** True when `dir` or an ancestor is trusted and no nearer entry untrusts it. Only `trusted: true` trusts. */
	isTrusted(dir: string): boolean;
	/** Trusts `dir` and every folder below it (written under the store's lock). */
	trust(dir: string): Promise<void>;
	/** Untrusts `dir` and every folder below it, overriding a trusted ancestor. */
	untrust(dir: string): Promise<void>;
	/** Every entry: the folder, whether it is trusted, and when that was recorded (ISO 8601). */
	list(): { path: string; trusted: boolean; at: string }[];
	/**
	 * Approves a remote skill as it is now (every file and digest, its allowed-tools and manifest). Throws for a
	 * skill that is not remote or has no pins: there is nothing to bind the approval to.
	 */
	approveSkill(skill: ApprovalSubject): Promise<SkillApproval>;
	/** Removes the approval of a remote skill; true when there was one. */
	revokeSkill(qualifiedName: string): Promise<boolean>;
	/** The approved remote skills by qualified name, sorted. */
	listSkills(): { name: string; files: number; at: string }[];
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
	let data = await readStore(file);
	// Every change: under the lock, re-read the store, apply the one change, write atomically.
	const update = async (change: (fresh: TrustFile) => void) => {
		await withFileLock(
			file,
			async () => {
				const fresh = await readStore(file);
				change(fresh);
				await writeFileAtomic(file, `${JSON.stringify(fresh, null, 2)}\n`, { mode: 0o600 });
				data = fresh;
			},
			"the trust store",
		);
	};
	const set = (dir: string, trusted: boolean) =>
		update((fresh) => {
			fresh.workspaces[resolve(dir)] = { trusted, at: new Date().toISOString() };
		});
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
		skillApproval: (name) => (data.skills && Object.hasOwn(data.skills, name) ? data.skills[name] : undefined),
		async approveSkill(skill) {
			const approval = approvalOf(skill);
			await update((fresh) => {
				fresh.skills = { ...fresh.skills, [skill.qualifiedName]: approval };
			});
			return approval;
		},
		async revokeSkill(name) {
			let found = false;
			await update((fresh) => {
				found = fresh.skills !== undefined && Object.hasOwn(fresh.skills, name);
				if (found && fresh.skills) delete fresh.skills[name];
			});
			return found;
		},
		listSkills: () =>
			Object.entries(data.skills ?? {})
				.map(([name, approval]) => ({ name, files: Object.keys(approval.files).length, at: approval.at }))
				.sort((a, b) => (a.name < b.name ? -1 : 1)),
	};
}

function approvalOf(skill: ApprovalSubject): SkillApproval {
	if (!skill.origin || !skill.pins) {
		throw new Error(`${skill.qualifiedName} is not a remote skill with verified files: there is nothing to approve`);
	}
	const { allowedTools, manifest } = skill.properties;
	return {
		files: structuredClone({ ...skill.pins }),
		...(allowedTools ? { allowedTools: [...allowedTools] } : {}),
		...(manifest ? { manifest: structuredClone(manifest) } : {}),
		at: new Date().toISOString(),
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
		return { version: 1, workspaces: Object.fromEntries(entries), ...readApprovals(parsed.skills) };
	} catch (error) {
		throw new Error(`${file}: ${(error as Error).message}`);
	}
}

// Approvals that are not well formed are dropped: such a skill reads as unapproved, and is asked for again.
function readApprovals(value: unknown): Pick<TrustFile, "skills"> {
	if (typeof value !== "object" || value === null || Array.isArray(value)) return {};
	const wellFormed = (entry: unknown): entry is SkillApproval => {
		const files = (entry as Partial<SkillApproval> | null)?.files;
		if (typeof files !== "object" || files === null || Array.isArray(files)) return false;
		const pins = Object.values(files) as Partial<FilePin>[];
		return pins.every((pin) => typeof pin?.sha256 === "string" && typeof pin.size === "number");
	};
	// fromEntries defines own properties: no key (not even `__proto__`) reaches the prototype.
	return { skills: Object.fromEntries(Object.entries(value).filter(([, entry]) => wellFormed(entry))) };
}
