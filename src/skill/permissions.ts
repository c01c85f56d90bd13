import type { Finding } from "./diagnostics.ts";
import type { FrontmatterField } from "./parsed-yaml.ts";

/**
 * What a skill declares it needs. A manifest only ever narrows what the host allows (its ceiling); it never grants.
 * `network` is false (none), true (any host) or a list of hosts; paths are relative to the workspace.
 */
export interface PermissionManifest {
	tools: string[];
	network: boolean | string[];
	paths: { read: string[]; write: string[] };
}

/** The most restrictive manifest: what an invalid `permissions` block falls back to. */
export function emptyManifest(): PermissionManifest {
	return { tools: [], network: false, paths: { read: [], write: [] } };
}

const TOP_KEYS = ["tools", "network", "paths"];
const PATH_KEYS = ["read", "write"];

/**
 * Parses a `permissions` block as a strict whitelist: only `tools` (list of strings), `network` (boolean or list of
 * hosts) and `paths.read` / `paths.write` (lists of relative paths) are accepted; unknown keys, wrong types,
 * absolute paths and `..` are findings. Any problem makes the whole manifest the empty one: a broken declaration
 * must not widen anything.
 */
export function parsePermissions(field: FrontmatterField): { manifest: PermissionManifest; findings: Finding[] } {
	const findings: Finding[] = [];
	const problem = (at: FrontmatterField, message: string, code: Finding["code"] = "permissions.invalid") =>
		findings.push({ code, message, at: at.valueOffset, field: "permissions" });
	if (!field.children) {
		problem(field, "permissions must be a mapping of tools, network and paths");
		return { manifest: emptyManifest(), findings };
	}
	const manifest = emptyManifest();
	for (const child of field.children.values()) {
		if (!TOP_KEYS.includes(child.key)) {
			problem(child, `permissions.${child.key} is not a known key (known: ${TOP_KEYS.join(", ")})`);
			continue;
		}
		if (child.key === "tools") manifest.tools = stringList(child, "permissions.tools", problem);
		if (child.key === "network") manifest.network = network(child, problem);
		if (child.key === "paths") manifest.paths = paths(child, problem);
	}
	return { manifest: findings.length > 0 ? emptyManifest() : manifest, findings };
}

type Problem = (at: FrontmatterField, message: string, code?: Finding["code"]) => void;

function stringList(field: FrontmatterField, where: string, problem: Problem): string[] {
	if (!field.items || field.items.some((item) => item.text === undefined || item.text.trim() === "")) {
		problem(field, `${where} must be a list of strings`);
		return [];
	}
	return field.items.map((item) => (item.text ?? "").trim());
}

function network(field: FrontmatterField, problem: Problem): boolean | string[] {
	if (typeof field.value === "boolean") return field.value;
	if (field.items) return stringList(field, "permissions.network", problem);
	problem(field, "permissions.network must be true, false or a list of hosts");
	return false;
}

function paths(field: FrontmatterField, problem: Problem): PermissionManifest["paths"] {
	const result: PermissionManifest["paths"] = { read: [], write: [] };
	if (!field.children) {
		problem(field, "permissions.paths must be a mapping with read and write lists");
		return result;
	}
	for (const child of field.children.values()) {
		if (!PATH_KEYS.includes(child.key)) {
			problem(child, `permissions.paths.${child.key} is not a known key (known: read, write)`);
			continue;
		}
		const list = stringList(child, `permissions.paths.${child.key}`, problem);
		for (const [index, path] of list.entries()) {
			const item = child.items?.[index] ?? child;
			if (path.startsWith("/") || path.startsWith("~") || /^[A-Za-z]:/.test(path)) {
				problem(item, `'${path}' is absolute; paths are relative to the workspace`, "permissions.path");
			} else if (path.split(/[\\/]/).includes("..")) {
				problem(item, `'${path}' leaves the workspace with '..'`, "permissions.path");
			}
		}
		result[child.key as "read" | "write"] = list;
	}
	return result;
}
