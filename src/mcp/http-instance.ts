import { hostname } from "node:os";

/**
 * The shape of an instance id: letters, digits, `_` and `-`, 1-63 characters, starting with a letter or digit. No
 * `.`: the first `.` of a session id ends the prefix, so a load balancer can route on `^ID\.` without ambiguity.
 */
export const INSTANCE_ID_PATTERN: RegExp = /^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/;

/** Why `id` is not a valid instance id, or undefined when it is. */
export function instanceIdProblem(id: string): string | undefined {
	if (INSTANCE_ID_PATTERN.test(id)) return undefined;
	return `instance id '${id.replace(/\p{Cc}/gu, "?").slice(0, 80)}' must be 1-63 letters, digits, '_' or '-', starting with a letter or digit`;
}

/**
 * The default instance id, from where the endpoint listens: the bind address and port (`127-0-0-1-8101`), or,
 * for a wildcard bind (`0.0.0.0`, `::`) that every machine of a fleet shares, this machine's host name and the port.
 * Two instances on one machine differ by port; instances on different machines differ by address or name.
 */
export function defaultInstanceId(host: string, port: number, machine: string = hostname()): string {
	const bare = host.replace(/^\[|\]$/g, "");
	const wildcard = bare === "0.0.0.0" || bare === "::" || bare === "";
	const base = (wildcard ? machine : bare).replace(/[^A-Za-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
	const suffix = `-${port}`;
	return `${(base || "skillset").slice(0, 63 - suffix.length)}${suffix}`;
}

/** A session id that carries its instance: `ID.` then a random UUID. */
export function prefixedSessionId(instanceId: string, random: string): string {
	return `${instanceId}.${random}`;
}
