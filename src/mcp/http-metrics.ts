/** Gauges read when `/metrics` is scraped: the state of the server at that moment. */
export interface MetricGauges {
	/** MCP sessions open now (2025 protocol; 2026-07-28 requests hold none). */
	sessions: number;
	/** Skills served by the current snapshot. */
	skills: number;
	/** Seconds since the current snapshot was made. */
	snapshotAgeSeconds: number;
	/** Seconds the scan behind the current snapshot took, when known. */
	scanSeconds: number | undefined;
	/** 1 when ready, 0 while starting or draining. */
	ready: boolean;
}

/** Latency buckets in seconds (upper bounds), from a cached read to a slow first digest. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The methods that get a label of their own. Any other value a client sends is counted as `other`: a label per
 * client-chosen string would let one client grow the metrics (and every scrape) without bound.
 */
const KNOWN_METHODS = new Set([
	"initialize",
	"ping",
	"resources/list",
	"resources/read",
	"resources/templates/list",
	"resources/subscribe",
	"resources/unsubscribe",
	"tools/list",
	"tools/call",
	"prompts/list",
	"prompts/get",
	"skills/list",
	"skills/get",
	"logging/setLevel",
	"completion/complete",
	"server/discover",
	"subscriptions/listen",
	"notifications/initialized",
	"notifications/cancelled",
	"notifications/roots/list_changed",
	"GET",
	"DELETE",
	"batch",
	"none",
]);

/** The label a request's method is counted under. */
export function methodLabel(method: string): string {
	return KNOWN_METHODS.has(method) ? method : "other";
}

/** Request counts and latencies of one HTTP endpoint, rendered in the Prometheus text format (version 0.0.4). */
export class HttpMetrics {
	readonly #requests = new Map<string, number>();
	readonly #buckets = BUCKETS.map(() => 0);
	#count = 0;
	#sum = 0;

	/** Counts one answered request. */
	observe(method: string, status: number, seconds: number): void {
		const key = `method="${methodLabel(method)}",status="${Math.trunc(status)}"`;
		this.#requests.set(key, (this.#requests.get(key) ?? 0) + 1);
		this.#count++;
		this.#sum += seconds;
		for (let i = 0; i < BUCKETS.length; i++)
			if (seconds <= (BUCKETS[i] ?? 0)) this.#buckets[i] = (this.#buckets[i] ?? 0) + 1;
	}

	/** The scrape body, with the gauges as they are now. */
	render(gauges: MetricGauges): string {
		const lines: string[] = [];
		const metric = (name: string, type: string, help: string) =>
			lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
		metric("skillset_mcp_requests_total", "counter", "HTTP requests to /mcp answered, by JSON-RPC method and status.");
		for (const [labels, count] of [...this.#requests].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
			lines.push(`skillset_mcp_requests_total{${labels}} ${count}`);
		metric("skillset_mcp_request_duration_seconds", "histogram", "Time from a request's arrival to its answer.");
		for (const [i, bound] of BUCKETS.entries())
			lines.push(`skillset_mcp_request_duration_seconds_bucket{le="${bound}"} ${this.#buckets[i] ?? 0}`);
		lines.push(`skillset_mcp_request_duration_seconds_bucket{le="+Inf"} ${this.#count}`);
		lines.push(`skillset_mcp_request_duration_seconds_sum ${round(this.#sum)}`);
		lines.push(`skillset_mcp_request_duration_seconds_count ${this.#count}`);
		metric("skillset_mcp_sessions_active", "gauge", "MCP sessions open now.");
		lines.push(`skillset_mcp_sessions_active ${gauges.sessions}`);
		metric("skillset_mcp_skills_served", "gauge", "Skills served by the current snapshot.");
		lines.push(`skillset_mcp_skills_served ${gauges.skills}`);
		metric("skillset_mcp_snapshot_age_seconds", "gauge", "Seconds since the current snapshot of the skills was made.");
		lines.push(`skillset_mcp_snapshot_age_seconds ${round(gauges.snapshotAgeSeconds)}`);
		if (gauges.scanSeconds !== undefined) {
			metric("skillset_mcp_scan_duration_seconds", "gauge", "Seconds the scan behind the current snapshot took.");
			lines.push(`skillset_mcp_scan_duration_seconds ${round(gauges.scanSeconds)}`);
		}
		metric("skillset_mcp_ready", "gauge", "1 when the instance takes new work, 0 while draining.");
		lines.push(`skillset_mcp_ready ${gauges.ready ? 1 : 0}`);
		return `${lines.join("\n")}\n`;
	}
}

function round(seconds: number): number {
	return Math.round(seconds * 1e6) / 1e6;
}
