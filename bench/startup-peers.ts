// Start-up of `skillset validate` on one skill against the Python reference CLI (skills-ref) when it is on PATH,
// and against a Python that imports what skills-ref imports (click, yaml), labelled as a proxy: skills-ref itself
// cannot be installed on every machine that runs the bench. Wall time only for the peers (they are not Node).
import { spawnSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { BIN, type External, type FastRow, interleaved, type ProcessContext, ratio } from "./process.ts";

const STARTS = 15;

/** Whether `program args` runs and exits 0 (a peer that is missing or broken is skipped, with the reason). */
function runs(program: string, args: string[]): boolean {
	const probe = spawnSync(program, args, { stdio: "ignore", timeout: 30_000 });
	return !probe.error && probe.status === 0;
}

/** Rows: `skillset validate` of one skill against skills-ref, and against the Python import proxy. */
export async function startupPeerRows(work: string, context: ProcessContext): Promise<FastRow[]> {
	const skill = join(work, "one-skill", "pdf-forms");
	await mkdir(skill, { recursive: true });
	await writeFile(
		join(skill, "SKILL.md"),
		"---\nname: pdf-forms\ndescription: Fills PDF forms. Use when the user asks to fill or read a PDF form.\n---\n# PDF forms\n",
	);
	const ours = [BIN, "validate", skill];
	const peers: { measure: string; command: External; skipped?: string }[] = [
		{
			measure: "`skillset validate` of one skill vs `skills-ref validate` (baseline)",
			command: { program: "skills-ref", args: ["validate", skill] },
			...(runs("skills-ref", ["--help"]) ? {} : { skipped: "skipped: skills-ref not on PATH" }),
		},
		{
			measure: "`skillset validate` of one skill vs `python3 -c 'import click, yaml'` (baseline)",
			command: { program: "python3", args: ["-c", "import click, yaml"] },
			...(runs("python3", ["-c", "import click, yaml"])
				? {}
				: { skipped: "skipped: python3 with click and yaml not on PATH" }),
		},
	];
	const live = peers.filter((peer) => !peer.skipped);
	const [mine, ...theirs] = interleaved([ours, ...live.map((peer) => peer.command)], STARTS, context);
	return peers.map((peer): FastRow => {
		const base = theirs[live.indexOf(peer)];
		if (peer.skipped || !mine || !base) return { skills: 1, measure: peer.measure, medianMs: 0, note: peer.skipped };
		const proxy = peer.command.program === "python3" ? "; a proxy for Python start-up with skills-ref's imports" : "";
		return {
			skills: 1,
			measure: peer.measure,
			medianMs: mine.wallMs,
			baselineMs: base.wallMs,
			note: `${ratio(mine.wallMs, base.wallMs)} wall (the peer's CPU is not measured)${proxy}; target ≤ 1.0×`,
		};
	});
}
