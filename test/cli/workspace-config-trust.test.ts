import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

let root: string;
let ws: string;
let env: Record<string, string>;

beforeAll(async () => {
	root = await tempDir();
	ws = join(root, "ws");
	env = { HOME: join(root, "home"), SKILLSET_TRUST_FILE: join(root, "trust.json") };
	await writeTree(ws, {
		"skillset.config.json": JSON.stringify({
			trustWorkspace: true,
			adminRoots: ["./.hidden/admin"],
			userRoots: ["./.hidden/user"],
			adminLocked: true,
		}),
		".hidden/admin/lifted/SKILL.md": skillMd("lifted", "Lifted into the admin scope."),
		".hidden/user/lifted-user/SKILL.md": skillMd("lifted-user", "Lifted into the user scope."),
	});
});

const scan = async (args: string[], extraEnv: Record<string, string> = {}) => {
	const run = await cli(["scan", ws, "--json", ...args], { env: { ...env, ...extraEnv } });
	const report = JSON.parse(run.stdout);
	const selected: string[] = report.selected.map((s: { name: string }) => s.name);
	const codes: string[] = report.diagnostics.map((d: { code: string }) => d.code);
	return { selected, codes, report };
};

describe("an untrusted workspace's own config cannot lift its skills into a trusted scope", () => {
	it.each<[string, string[], Record<string, string>]>([
		["--untrusted", ["--untrusted"], {}],
		["--trust-store without an entry", ["--trust-store"], {}],
		["SKILLSET_TRUST_WORKSPACE=0", [], { SKILLSET_TRUST_WORKSPACE: "0" }],
	])("%s: root keys are ignored with a diagnostic", async (_, args, extraEnv) => {
		const { selected, codes, report } = await scan(args, extraEnv);
		expect(selected).not.toContain("lifted");
		expect(selected).not.toContain("lifted-user");
		expect(codes).toContain("trust.config-ignored");
		const diagnostic = report.diagnostics.find((d: { code: string }) => d.code === "trust.config-ignored");
		expect(diagnostic.message).toMatch(/userRoots, adminRoots, adminLocked/);
	});

	it("a trusted workspace keeps them, and so does a config file the user names", async () => {
		expect((await scan([])).selected).toEqual(expect.arrayContaining(["lifted", "lifted-user"]));
		const named = await scan(["--untrusted", "--config", join(ws, "skillset.config.json")]);
		expect(named.selected).toEqual(expect.arrayContaining(["lifted", "lifted-user"]));
		expect(named.codes).not.toContain("trust.config-ignored");
	});
});
