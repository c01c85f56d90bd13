import { basename } from "node:path";
import type { ParseArgsConfig } from "node:util";
import { buildCatalog, type CatalogReport } from "../../catalog/index.ts";
import type { DiscoveryDiagnostic, IndexedSkill, RejectedSkill } from "../../discovery/index.ts";
import { type DiscoveryFlagValues, discoverFor, discoveryFlags, discoveryUsage } from "../discovery-flags.ts";
import { type CliIo, type CommandResult, type Style, UsageError } from "../io.ts";
import { renderDiagnostic } from "../render-diagnostics.ts";
import { type CatalogFlagValues, catalogFlags, catalogSettingsFlags, catalogUsage } from "./catalog.ts";

/** The command's options, for `node:util` parseArgs. */
export const options: NonNullable<ParseArgsConfig["options"]> = {
	...discoveryFlags,
	...catalogFlags,
	json: { type: "boolean", default: false },
};

/** Shown with --help and after a usage error. */
export const usage: string = `Usage: skillset doctor NAME [DIR] [options]

Explain why the skill NAME is or is not in the catalog: where each copy was found, how it parsed, whether it
was shadowed (and by what), untrusted, disabled, hidden from the model, or cut by the budget.

${discoveryUsage}

${catalogUsage}
  --json                     print the explanation as JSON

Exit status: 0 the skill is in the catalog, 1 it is not, 2 usage error.`;

/** Where the catalog leaves one copy. */
export type CatalogPlace = "listed" | "truncated" | "named" | "omitted" | "not-listed";

/** One copy of the skill and its fate. */
export interface DoctorCopy {
	file: string;
	root: string | null;
	scope: string;
	status: IndexedSkill["status"] | "rejected";
	qualifiedName: string | null;
	/** The remote origin of a skill from elsewhere. */
	origin?: string;
	/** Plain-language reasons, most important first. */
	reasons: string[];
	catalog: CatalogPlace;
	diagnostics: DiscoveryDiagnostic[];
}

/** The whole explanation. */
export interface DoctorResult {
	name: string;
	inCatalog: boolean;
	copies: DoctorCopy[];
	/** When nothing matched: the closest selected names, and how many roots were scanned. */
	closest: string[];
	roots: { scanned: number; existing: number };
}

/** Explains one skill; exit 1 when it is not in the catalog. */
export async function run(
	values: DiscoveryFlagValues & CatalogFlagValues,
	positionals: readonly string[],
	io: CliIo,
): Promise<CommandResult<DoctorResult>> {
	const [name, dir, ...extra] = positionals;
	if (name === undefined) throw new UsageError("doctor needs the NAME of a skill");
	if (name.trim() === "") throw new UsageError("the skill NAME is empty");
	if (extra.length > 0) throw new UsageError("doctor takes NAME and at most one DIR");
	const flags = { catalog: catalogSettingsFlags(values) };
	const { index, report, catalog: settings } = await discoverFor(values, dir, io, { flags });
	const catalog = await buildCatalog(index, settings);
	// Names resolve as show and read resolve them: by id or qualified name. A folder or declared name that is not
	// the id gets the index's "did you mean", like everywhere else. A rejected skill has no id: its folder names it.
	const found = index.skills.filter((s) => s.name === name || s.qualifiedName === name);
	const rejected = report.rejected.filter((r) => (r.name ?? basename(r.dir)) === name || basename(r.dir) === name);
	const copies = [...found.map((s) => skillCopy(s, catalog.report)), ...rejected.map(rejectedCopy)];
	const inCatalog = copies.some((c) => c.catalog === "listed" || c.catalog === "truncated" || c.catalog === "named");
	const data: DoctorResult = {
		name,
		inCatalog,
		copies,
		closest: copies.length === 0 ? index.closest(name) : [],
		roots: { scanned: report.roots.length, existing: report.roots.filter((r) => r.exists).length },
	};
	return { exitCode: inCatalog ? 0 : 1, data };
}

function skillCopy(skill: IndexedSkill, catalog: CatalogReport): DoctorCopy {
	const reasons: string[] = [];
	let place: CatalogPlace = "not-listed";
	if (skill.status === "shadowed") reasons.push(`shadowed by ${skill.shadowedBy}; reachable as ${skill.qualifiedName}`);
	else if (skill.status === "untrusted") reasons.push("its workspace is not trusted");
	else if (skill.status === "disabled") reasons.push("disabled by configuration");
	else if (!skill.modelInvocable) reasons.push("disable-model-invocation is set: only a user can invoke it");
	else place = catalogPlace(skill.name, catalog, reasons);
	return {
		file: skill.file,
		root: skill.root,
		scope: skill.scope,
		status: skill.status,
		qualifiedName: skill.qualifiedName,
		...(skill.origin ? { origin: skill.origin } : {}),
		reasons,
		catalog: place,
		diagnostics: [...skill.diagnostics],
	};
}

function catalogPlace(name: string, catalog: CatalogReport, reasons: string[]): CatalogPlace {
	const truncated = catalog.truncated.find((t) => t.name === name);
	if (catalog.omitted.includes(name)) {
		reasons.push(
			`left out by the budget (${catalog.budget?.limit} ${catalog.budget?.unit}): not even its name fits, and lower-precedence skills go first`,
		);
		return "omitted";
	}
	if (catalog.named.includes(name)) {
		reasons.push(
			`listed by name only: the budget (${catalog.budget?.limit} ${catalog.budget?.unit}) describes other skills first (precedence, --query, recent use, then a fixed order)`,
		);
		return "named";
	}
	if (truncated) {
		reasons.push(`listed, with its description cut by ${truncated.droppedChars} characters to fit the budget`);
		return "truncated";
	}
	reasons.push("listed in the catalog");
	return "listed";
}

function rejectedCopy(skill: RejectedSkill): DoctorCopy {
	const errors = skill.diagnostics.filter((d) => d.severity === "error");
	return {
		file: skill.file,
		root: null,
		scope: skill.scope,
		status: "rejected",
		qualifiedName: null,
		reasons: errors.map((d) => `rejected: ${d.message} (${d.code})`),
		catalog: "not-listed",
		diagnostics: skill.diagnostics,
	};
}

/** A short verdict, then each copy with its reasons and diagnostics. */
export function render(data: DoctorResult, style: Style): string {
	if (data.copies.length === 0) {
		const closest = data.closest.length > 0 ? ` Did you mean ${data.closest.map((c) => `'${c}'`).join(" or ")}?` : "";
		const roots = `${data.roots.existing} of ${data.roots.scanned} roots exist; run 'skillset scan' to see them.`;
		return `No skill is named '${data.name}'.${closest}\n${roots}\n`;
	}
	const verdict = data.inCatalog ? "in the catalog" : "not in the catalog";
	const lines = [style.bold(`${data.name}: ${verdict}`)];
	for (const copy of data.copies) {
		lines.push(`  ${copy.file}`);
		const where = copy.origin
			? ` from ${copy.origin}, verified copy in the cache`
			: copy.root
				? ` root ${copy.root}`
				: "";
		lines.push(`    ${style.dim(`${copy.scope}${where}, ${copy.status}`)}`);
		for (const reason of copy.reasons) lines.push(`    - ${reason}`);
		for (const d of copy.diagnostics) lines.push(`      ${renderDiagnostic(d, style, false)}`);
	}
	return `${lines.join("\n")}\n`;
}
