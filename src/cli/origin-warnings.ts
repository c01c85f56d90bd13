import type { DiscoveryReport } from "../discovery/index.ts";
import type { OriginSettings } from "../settings/index.ts";
import { type CliIo, markOriginFailed } from "./io.ts";
import type { OriginSummary } from "./origin-providers.ts";
import { type OriginStatus, originStatuses } from "./origin-status.ts";
import { plural } from "./render-diagnostics.ts";
import { terminalSafe } from "./terminal-text.ts";

// A failed origin must never look like an empty one: every command that discovers says on stderr which origin
// failed and why, and the command fails when nothing of that origin could be served (issue 21 item 6).

/**
 * Prints one warning line per origin that could not be refreshed (its reason, and whether cached copies were served)
 * and records a failure with nothing cached, which `originExitCode` turns into exit 1 unless `allowOffline`.
 */
export async function warnFailedOrigins(
	origins: readonly OriginSummary[],
	settings: OriginSettings,
	report: DiscoveryReport,
	startedAt: number,
	io: CliIo,
	options: { failRun?: boolean } = {},
): Promise<OriginStatus[]> {
	if (origins.length === 0) return [];
	const statuses = await originStatuses(origins, report, startedAt);
	for (const status of statuses) {
		if (status.status === "reachable") continue;
		io.stderr(`${terminalSafe(warningLine(status, settings))}\n`);
		if (status.status === "failed" && !settings.allowOffline && options.failRun !== false) markOriginFailed(io);
	}
	return statuses;
}

function warningLine(status: OriginStatus, settings: OriginSettings): string {
	const reason = reasonOf(status);
	const served =
		status.status === "cached"
			? `serving ${plural(status.skills, "cached skill")} from ${status.refreshedAt ?? "an earlier run"}`
			: "nothing cached to serve (--allow-offline to go on without it)";
	const hint = /\bHTTP 401\b/.test(reason) ? `; ${tokenHint(status, settings)}` : "";
	return `skillset: warning: origin ${status.origin} (${status.where}) failed: ${reason}${hint}; ${served}`;
}

/** The origin's own reason, on one line; a 401 always says "HTTP 401 Unauthorized". */
function reasonOf(status: OriginStatus): string {
	const failure = status.diagnostics.find((d) => d.code === "origin.failed") ?? status.diagnostics[0];
	const text = (failure?.message ?? "no answer and no reason given").replace(/\s+/g, " ").trim();
	return text.replace(/\bHTTP 401\b(?! Unauthorized)/, "HTTP 401 Unauthorized");
}

function tokenHint(status: OriginStatus, settings: OriginSettings): string {
	if (status.kind === "index") return "the index asks for credentials, which skillset does not send to indexes";
	const server = settings.mcpServers[status.label];
	const tokenEnv = server && "url" in server ? server.tokenEnv : undefined;
	return tokenEnv
		? `check the token in ${tokenEnv}`
		: `give its token with "tokenEnv": "VARIABLE" in the mcpServers entry of the config file`;
}
