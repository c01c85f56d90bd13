import type { PermissionManifest } from "../skill/index.ts";

/** What a skill may ask for: its manifest (undefined: no narrowing, so everything in the ceiling) and allowed-tools. */
export interface PermissionSnapshot {
	manifest?: PermissionManifest;
	allowedTools?: string[];
}

/** Permissions one version has that the other lacks. `"*"` stands for "anything", a skill without a manifest. */
export interface PermissionChanges {
	tools: string[];
	network: string[];
	read: string[];
	write: string[];
	allowedTools: string[];
}

/** How the permissions of two versions of a skill differ; any addition needs the user's approval again. */
export interface PermissionDiff {
	added: PermissionChanges;
	removed: PermissionChanges;
	needsApproval: boolean;
}

/** Compares the permissions of two versions of a skill (before, after). */
export function diffPermissions(before: PermissionSnapshot, after: PermissionSnapshot): PermissionDiff {
	const a = flatten(before);
	const b = flatten(after);
	const added = subtract(b, a);
	const removed = subtract(a, b);
	const needsApproval = Object.values(added).some((list) => list.length > 0);
	return { added, removed, needsApproval };
}

function flatten(snapshot: PermissionSnapshot): PermissionChanges {
	const manifest = snapshot.manifest;
	const any = ["*"];
	return {
		tools: manifest ? manifest.tools : any,
		network: manifest ? (manifest.network === true ? any : manifest.network === false ? [] : manifest.network) : any,
		read: manifest ? manifest.paths.read : any,
		write: manifest ? manifest.paths.write : any,
		allowedTools: snapshot.allowedTools ?? [],
	};
}

function subtract(from: PermissionChanges, other: PermissionChanges): PermissionChanges {
	const minus = (list: string[], without: string[]) =>
		without.includes("*") ? [] : list.filter((item) => !without.includes(item));
	return {
		tools: minus(from.tools, other.tools),
		network: minus(from.network, other.network),
		read: minus(from.read, other.read),
		write: minus(from.write, other.write),
		allowedTools: from.allowedTools.filter((item) => !other.allowedTools.includes(item)),
	};
}
