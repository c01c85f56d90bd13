import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";
import { localhostAllowedHostnames, validateHostHeader } from "@modelcontextprotocol/server";

/** A request refused before it reaches MCP: the status, a message, and headers to add. */
export interface Refusal {
	status: number;
	message: string;
	headers?: Record<string, string>;
}

/** True for 127.0.0.0/8, ::1 and `localhost`. */
export function isLoopback(host: string): boolean {
	const bare = host.replace(/^\[|\]$/g, "");
	if (bare === "localhost" || bare === "::1") return true;
	return isIP(bare) === 4 && bare.startsWith("127.");
}

/** What a request must carry: a localhost `Host` on loopback, an allowed `Origin` (or none), the bearer token. */
export interface RequestRules {
	loopback: boolean;
	/** On loopback, the names accepted in `Host` besides the localhost ones (a proxy's public name). */
	hosts: readonly string[];
	/** Origins a browser page may call from (serialized, `scheme://host[:port]`). */
	origins: ReadonlySet<string>;
	/** SHA-256 of the bearer token, when one is required. */
	token: Buffer | undefined;
	/**
	 * `Host` values the full check accepted (a client sends the same one on every request): at most
	 * {@link MAX_ACCEPTED_HOSTS}, so endless spellings (every port) cannot grow it. Only a request that passed every
	 * check (Origin and token too) adds its value: refusals are never kept.
	 */
	acceptedHosts?: Set<string>;
}

/** The most accepted `Host` values a server remembers; past that the full check runs for the others. */
export const MAX_ACCEPTED_HOSTS = 16;

/**
 * The origins a browser page may call the endpoint from: the server's own (on loopback, under each localhost
 * name, with its port) and the ones the host configured. A page on another port of the same machine is another
 * origin: it is refused unless configured.
 */
export function allowedOrigins(host: string, port: number, configured: readonly string[] = []): Set<string> {
	const origins = new Set(configured.map(originOf));
	if (!isLoopback(host)) return origins;
	const bare = host.replace(/^\[|\]$/g, "");
	for (const name of ["localhost", "127.0.0.1", "[::1]", bare.includes(":") ? `[${bare}]` : bare])
		origins.add(`http://${name}:${port}`);
	return origins;
}

/** The serialized origin of a configured value; throws for anything that is not an http(s) origin. */
export function originOf(value: string): string {
	let url: URL;
	try {
		url = new URL(value);
	} catch {
		throw new Error(`'${value}' is not an origin (scheme://host[:port])`);
	}
	if ((url.protocol !== "http:" && url.protocol !== "https:") || url.origin !== value.replace(/\/$/, ""))
		throw new Error(`'${value}' is not an http(s) origin (scheme://host[:port], no path)`);
	return url.origin;
}

/** A host name as `Host` carries it (lowercase, IPv6 in brackets); throws for anything else (a port, a path). */
export function hostnameOf(value: string): string {
	const parsed = URL.canParse(`http://${value}`) ? new URL(`http://${value}`) : undefined;
	if (!parsed || parsed.host !== value.toLowerCase() || parsed.port !== "" || value === "")
		throw new Error(`'${value.replace(/\p{Cc}/gu, "?")}' is not a host name (no scheme, port or path)`);
	return parsed.hostname;
}

/** The first rule `req` breaks, or undefined. The token is compared in constant time, by digest. */
export function checkRequest(req: IncomingMessage, rules: RequestRules): Refusal | undefined {
	const host = req.headers.host;
	// Parsing the header (a URL per request) is the check's cost: a value it accepted once is accepted as it is.
	const checkHost = rules.loopback && (host === undefined || !rules.acceptedHosts?.has(host));
	if (checkHost) {
		const hostCheck = validateHostHeader(host, [...localhostAllowedHostnames(), ...rules.hosts]);
		if (!hostCheck.ok) return { status: 403, message: hostCheck.message };
	}
	const origin = req.headers.origin;
	if (origin !== undefined && origin !== "" && !rules.origins.has(serializedOrigin(origin)))
		return { status: 403, message: "Origin not allowed" };
	if (rules.token) {
		const match = /^Bearer (.+)$/.exec(req.headers.authorization ?? "");
		if (!match?.[1] || !timingSafeEqual(digestOf(match[1]), rules.token))
			return { status: 401, message: "Missing or wrong bearer token", headers: { "www-authenticate": "Bearer" } };
	}
	// Remembered only once the whole check passed: a local caller without the token (or from a refused Origin) could
	// otherwise fill every slot with spellings of its own, for good.
	if (checkHost && host !== undefined && rules.acceptedHosts && rules.acceptedHosts.size < MAX_ACCEPTED_HOSTS)
		rules.acceptedHosts.add(host);
	return undefined;
}

/** SHA-256 of a token (so tokens of any length compare in constant time). */
export function digestOf(token: string): Buffer {
	return createHash("sha256").update(token).digest();
}

function serializedOrigin(header: string): string {
	try {
		const url = new URL(header);
		// Only a bare origin is one: a header with a path or credentials is not what a browser sends.
		return url.origin === header ? url.origin : "";
	} catch {
		return "";
	}
}
