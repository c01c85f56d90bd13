import { uriSegments } from "./uri.ts";

/**
 * One line of the request log: what was asked and how it went. It never holds a header (so never the token), a
 * body or any skill content; `skill` is set only to a skill the server serves, never to a string a client chose.
 */
export interface HttpRequestLog {
	/** The JSON-RPC method (`resources/read`), `GET` or `DELETE` for a stream or a session's end, `none`. */
	method: string;
	/** The skill the request names, when it names one the server serves. */
	skill?: string;
	/** The HTTP status of the answer. */
	status: number;
	/** Milliseconds from arrival to the end of the answer. */
	durationMs: number;
	/** The session the request belongs to (2025 protocol), as the server issued it. */
	session?: string;
	/** Who asked, when there is no session: the peer's address. */
	client?: string;
	/** The instance that answered. */
	instance: string;
}

/** What a request's body says it is for: its method, and the skill it names (by name or by URI), unchecked. */
export interface RequestFacts {
	method: string;
	/** A skill path from a `skill://` URI, or a name from a tool call or prompt. */
	skillRef?: string;
	/** Skill paths of the URI, longest first, to match against the served skills. */
	skillPaths?: string[];
}

/** The method and skill reference of a parsed JSON-RPC body (`undefined` for a GET or DELETE). */
export function requestFacts(httpMethod: string, parsed: unknown): RequestFacts {
	if (parsed === undefined) return { method: httpMethod === "POST" ? "none" : httpMethod };
	if (Array.isArray(parsed)) return { method: "batch" };
	if (typeof parsed !== "object" || parsed === null) return { method: "none" };
	const message = parsed as { method?: unknown; params?: Record<string, unknown> };
	// A client chooses the method: a long one is cut, so it cannot flood the log.
	const method = typeof message.method === "string" ? message.method.slice(0, 100) : "none";
	const params = typeof message.params === "object" && message.params !== null ? message.params : {};
	if (typeof params.uri === "string") {
		const segments = uriSegments(params.uri);
		if (!segments) return { method };
		// A skill path is every leading run of segments but the last (a file), longest first: `a/b/SKILL.md` → `a/b`, `a`.
		const paths: string[] = [];
		for (let end = segments.length; end >= 1; end--) paths.push(segments.slice(0, end).join("/"));
		return { method, skillPaths: paths };
	}
	const args = params.arguments as { name?: unknown } | undefined;
	if (method === "tools/call" && typeof args?.name === "string") return { method, skillRef: args.name };
	if (method === "prompts/get" && typeof params.name === "string") return { method, skillRef: params.name };
	return { method };
}

/**
 * The served skills by path and by name, to name the skill of a request. Rebuilt when the served set changes.
 */
export class ServedSkills {
	#byPath = new Map<string, string>();
	#names = new Set<string>();

	/** Replaces the set with `served` (`skill://PATH/SKILL.md` URIs and names). */
	reset(served: readonly { name: string; uri: string }[]): void {
		this.#byPath = new Map();
		this.#names = new Set();
		for (const skill of served) {
			const path = uriSegments(skill.uri)?.slice(0, -1).join("/");
			if (path) this.#byPath.set(path, skill.name);
			this.#names.add(skill.name);
		}
	}

	/** The served skill `facts` names, or undefined. */
	skillOf(facts: RequestFacts): string | undefined {
		for (const path of facts.skillPaths ?? []) {
			const name = this.#byPath.get(path);
			if (name !== undefined) return name;
		}
		if (facts.skillRef !== undefined && this.#names.has(facts.skillRef)) return facts.skillRef;
		return undefined;
	}
}

/** A log line as one JSON object (keys in a fixed order, durations rounded to 0.1 ms). */
export function formatRequestLog(line: HttpRequestLog, time: Date = new Date()): string {
	return JSON.stringify({
		time: time.toISOString(),
		level: "info",
		event: "request",
		instance: line.instance,
		method: line.method,
		...(line.skill === undefined ? {} : { skill: line.skill }),
		status: line.status,
		durationMs: Math.round(line.durationMs * 10) / 10,
		...(line.session === undefined ? {} : { session: line.session }),
		...(line.client === undefined ? {} : { client: line.client }),
	});
}
