import { writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import {
	createPolicy,
	createSession,
	estimateTokenizer,
	type IndexedSkill,
	loadTrustStore,
	resolveApproval,
	type SkillIndex,
	type ToolCall,
} from "skillset";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.ts";
import { startIndexSite } from "../helpers/index-site.ts";
import { skillMd, tempDir } from "../helpers/temp.ts";

// Real remote skills: published as a well-known index on a loopback server, fetched by `createIndexOrigin`.
const site = await startIndexSite();
const sandbox = { available: true, kind: "bwrap", path: "/usr/bin/bwrap" } as const;

const DEPLOYER = skillMd("deployer", "Deploys.", "allowed-tools: Bash(git status:*) Write");
const LOCAL = {
	".agents/skills/plain/SKILL.md": skillMd("plain", "No manifest, no pre-approvals."),
	".agents/skills/tester/SKILL.md": skillMd("tester", "Runs tests.", "allowed-tools: Bash(npm test:*)"),
};

async function remoteDeployer(script = "git status\n") {
	await site.publish({ "deployer/SKILL.md": DEPLOYER, "deployer/scripts/run.sh": script });
	return site.workspace(LOCAL);
}

async function activeSession(index: SkillIndex, names: string[]) {
	const session = createSession(index, { tokenizer: estimateTokenizer });
	for (const name of names) {
		const activation = await session.activate(name);
		if (!activation.ok) throw new Error(activation.message);
	}
	return session;
}

const gitStatus: ToolCall = { tool: "Bash", args: { command: "git status" } };
const npmTest: ToolCall = { tool: "Bash", args: { command: "npm test" } };
const write: ToolCall = { tool: "Write", args: { file_path: "src/app.ts" } };

describe("authorize with an active remote skill", () => {
	// Each row would be `allow` on the code before approvals: the remote skill's (or a local skill's) allowed-tools
	// pre-approved it.
	it.each<[string, boolean, string[], ToolCall, string, string]>([
		["unapproved, alone: its allowed-tools", false, ["deployer"], gitStatus, "deny", "manifest"],
		["unapproved, alone: a write it pre-approves", false, ["deployer"], write, "deny", "manifest"],
		[
			"unapproved, beside a skill without a manifest",
			false,
			["deployer", "plain"],
			gitStatus,
			"ask",
			"remote-unapproved",
		],
		[
			"unapproved, beside a local skill's pre-approval",
			false,
			["deployer", "tester"],
			npmTest,
			"ask",
			"remote-unapproved",
		],
		["approved: its allowed-tools apply", true, ["deployer"], gitStatus, "allow", "allowed-tools"],
		["approved: a write it pre-approves", true, ["deployer"], write, "allow", "allowed-tools"],
		["approved, beside a local skill's pre-approval", true, ["deployer", "tester"], npmTest, "allow", "allowed-tools"],
	])("%s", async (_what, approved, active, call, decision, rule) => {
		const ws = await remoteDeployer();
		const { index } = await ws.run();
		const store = await loadTrustStore(join(await tempDir(), "trust.json"));
		if (approved) await store.approveSkill(index.get("deployer") as IndexedSkill);
		const session = await activeSession(index, active);
		const policy = createPolicy({ workspace: ws.cwd, sandbox, approvals: store });
		expect(policy.authorize(call, { session })).toMatchObject({ decision, rule });
	});

	it("without approvals passed at all, a remote skill's allowed-tools grant nothing", async () => {
		const { index, cwd } = await remoteDeployer().then(async (ws) => ({ ...(await ws.run()), cwd: ws.cwd }));
		const session = await activeSession(index, ["deployer", "plain"]);
		const policy = createPolicy({ workspace: cwd, sandbox });
		expect(policy.authorize(gitStatus, { session })).toMatchObject({ decision: "ask", rule: "remote-unapproved" });
		expect(policy.sandboxOptions(session).network).toBe(true); // `plain` has no manifest: nothing narrows
	});

	it("still lets the user's own grant allow the asked call", async () => {
		const ws = await remoteDeployer();
		const { index } = await ws.run();
		const session = await activeSession(index, ["deployer", "plain"]);
		const policy = createPolicy({ workspace: ws.cwd, sandbox });
		policy.grant(session, "Bash(git status:*)", "once");
		expect(policy.authorize(gitStatus, { session })).toMatchObject({ decision: "allow", rule: "grant-once" });
		expect(policy.authorize(gitStatus, { session })).toMatchObject({ decision: "ask", rule: "remote-unapproved" });
	});

	it.each([true, false])(
		"lets other tools read a remote skill's copy never (approved: %s): only read_skill_resource verifies it",
		async (approved) => {
			const ws = await remoteDeployer();
			const { index } = await ws.run();
			const deployer = index.get("deployer") as IndexedSkill;
			const store = await loadTrustStore(join(await tempDir(), "trust.json"));
			if (approved) await store.approveSkill(deployer);
			const session = await activeSession(index, ["deployer", "plain"]);
			const policy = createPolicy({ workspace: ws.cwd, sandbox, approvals: store });
			const file = join(dirname(deployer.realFile), "scripts", "run.sh");
			expect(policy.authorize({ tool: "Read", args: { file_path: file } }, { session })).toMatchObject({
				decision: "deny",
				rule: "remote-skill-files",
			});
			const viaSkillTool = { tool: "read_skill_resource", args: { name: "deployer", path: "scripts/run.sh" } };
			expect(policy.authorize(viaSkillTool, { session })).toMatchObject({ decision: "allow" });
			const local = { tool: "Read", args: { file_path: join(ws.cwd, ".agents/skills/plain/SKILL.md") } };
			expect(policy.authorize(local, { session })).toMatchObject({ decision: "allow" });
		},
	);

	it("keeps an unapproved remote skill off the network in the sandbox", async () => {
		const ws = await remoteDeployer();
		const { index } = await ws.run();
		const session = await activeSession(index, ["deployer"]);
		expect(createPolicy({ workspace: ws.cwd, sandbox }).sandboxOptions(session).network).toBe(false);
	});
});

describe("approvals bound to the resource set", () => {
	it("revokes an approval when one file changes, and asks again with the permission diff", async () => {
		const ws = await remoteDeployer();
		const storeFile = join(await tempDir(), "trust.json");
		const store = await loadTrustStore(storeFile);
		const first = await ws.run();
		await store.approveSkill(first.index.get("deployer") as IndexedSkill);
		const policy = createPolicy({ workspace: ws.cwd, sandbox, approvals: store });
		expect(policy.approval(first.index.get("deployer") as IndexedSkill)).toMatchObject({ status: "approved" });
		const before = await activeSession(first.index, ["deployer"]);
		expect(policy.authorize(gitStatus, { session: before })).toMatchObject({ decision: "allow" });

		// The origin publishes a new version with one script changed and nothing else: that alone revokes it.
		await remoteDeployer("git push --force\n");
		const second = await ws.run();
		const changed = second.index.get("deployer") as IndexedSkill;
		const reloaded = await loadTrustStore(storeFile);
		for (const approvals of [store, reloaded]) {
			expect(createPolicy({ workspace: ws.cwd, approvals }).approval(changed)).toMatchObject({
				status: "changed",
				files: { changed: ["scripts/run.sh"], added: [], removed: [] },
				diff: { needsApproval: false },
			});
		}
		const after = await activeSession(second.index, ["deployer", "plain"]);
		expect(policy.authorize(gitStatus, { session: after })).toMatchObject({
			decision: "ask",
			rule: "remote-unapproved",
		});

		// Then one with one more pre-approval and a new file: the next ask shows the permission diff.
		await site.publish({
			"deployer/SKILL.md": DEPLOYER.replace("Write\n", "Write Bash(git push:*)\n"),
			"deployer/scripts/run.sh": "git push --force\n",
			"deployer/scripts/more.sh": "echo\n",
		});
		const third = (await ws.run()).index.get("deployer") as IndexedSkill;
		expect(policy.approval(third)).toMatchObject({
			status: "changed",
			files: { changed: ["SKILL.md", "scripts/run.sh"], added: ["scripts/more.sh"], removed: [] },
			diff: { needsApproval: true, added: { allowedTools: ["Bash(git push:*)"] } },
		});

		await store.approveSkill(changed);
		expect(policy.authorize(gitStatus, { session: after })).toMatchObject({ decision: "allow", rule: "allowed-tools" });
	});

	it("reports a never-approved remote skill with what approving it would grant; a local skill needs none", async () => {
		const ws = await remoteDeployer();
		const { index } = await ws.run();
		const policy = createPolicy({ workspace: ws.cwd });
		expect(policy.approval(index.get("deployer") as IndexedSkill)).toMatchObject({
			status: "unapproved",
			diff: { added: { allowedTools: ["Bash(git status:*)", "Write"] } },
		});
		expect(policy.approval(index.get("tester") as IndexedSkill)).toEqual({ status: "local" });
	});
});

describe("approvals in the trust store", () => {
	it("merge with other changes under the store's lock, and survive a reload", async () => {
		const ws = await remoteDeployer();
		const deployer = (await ws.run()).index.get("deployer") as IndexedSkill;
		const file = join(await tempDir(), "trust.json");
		const [a, b] = [await loadTrustStore(file), await loadTrustStore(file)];
		await a.approveSkill(deployer);
		await b.trust(ws.cwd); // b was loaded before a's approval: it must not drop it
		const reloaded = await loadTrustStore(file);
		expect(reloaded.isTrusted(ws.cwd)).toBe(true);
		expect(reloaded.listSkills()).toEqual([{ name: "deployer@index:acme", files: 2, at: expect.any(String) }]);
		expect(resolveApproval(deployer, reloaded).status).toBe("approved");
		expect(await b.revokeSkill("deployer@index:acme")).toBe(true);
		expect(resolveApproval(deployer, await loadTrustStore(file)).status).toBe("unapproved");
	});

	it.each([
		["files that are not pins", { files: { "SKILL.md": "abc" }, at: "" }],
		["no files", { at: "" }],
		["not an object", "yes"],
	])("reads an approval with %s as no approval", async (_what, entry) => {
		const ws = await remoteDeployer();
		const deployer = (await ws.run()).index.get("deployer") as IndexedSkill;
		const file = join(await tempDir(), "trust.json");
		await writeFile(file, JSON.stringify({ version: 1, workspaces: {}, skills: { "deployer@index:acme": entry } }));
		expect(resolveApproval(deployer, await loadTrustStore(file)).status).toBe("unapproved");
	});

	it("refuses to approve a skill that is not remote", async () => {
		const ws = await remoteDeployer();
		const plain = (await ws.run()).index.get("plain") as IndexedSkill;
		const store = await loadTrustStore(join(await tempDir(), "trust.json"));
		await expect(store.approveSkill(plain)).rejects.toThrow(/not a remote skill/);
	});
});

describe("skillset trust --skill", () => {
	it("approves the cached verified copy, binds it to every file, and revokes it with --untrust", async () => {
		const ws = await remoteDeployer();
		const { index } = await ws.run();
		const store = join(await tempDir(), "trust.json");
		const io = { cwd: ws.cwd, env: { SKILLSET_CACHE_DIR: ws.cacheDir } };
		// No terminal and no --yes: nothing is granted, and the refusal shows what would have been.
		const unasked = await cli(["trust", "--skill", "deployer@index:acme", "--store", store], io);
		expect(unasked.exitCode).toBe(1);
		expect(unasked.stderr).toMatch(
			/^deployer@index:acme would be approved: 2 files[^\n]*\n( {2}grants [^\n]*\n)* {2}grants allowedTools: Bash\(git status:\*\), Write\n/,
		);
		expect(unasked.stderr).toMatch(/not approved: no terminal to ask; pass --yes to approve/);
		expect((await loadTrustStore(store)).skillApproval("deployer@index:acme")).toBeUndefined();
		const approve = await cli(["trust", "--skill", "deployer@index:acme", "--yes", "--store", store, "--json"], io);
		expect(approve.exitCode).toBe(0);
		expect(JSON.parse(approve.stdout).skill).toMatchObject({
			name: "deployer@index:acme",
			approved: true,
			files: 2,
			diff: { added: { allowedTools: ["Bash(git status:*)", "Write"] } },
		});
		const approval = (await loadTrustStore(store)).skillApproval("deployer@index:acme");
		expect(Object.keys(approval?.files ?? {}).sort()).toEqual(["SKILL.md", "scripts/run.sh"]);
		const policy = createPolicy({ workspace: ws.cwd, approvals: await loadTrustStore(store) });
		expect(policy.approval(index.get("deployer") as IndexedSkill)).toMatchObject({ status: "approved" });

		const text = await cli(["trust", "--skill", "deployer@index:acme", "--yes", "--store", store], io);
		expect(text.stdout).toMatch(/^approved: deployer@index:acme \(2 files/);
		const revoke = await cli(["trust", "--skill", "deployer@index:acme", "--untrust", "--store", store], io);
		expect(revoke.stdout).toBe("revoked: deployer@index:acme\n");
		expect((await loadTrustStore(store)).skillApproval("deployer@index:acme")).toBeUndefined();
	});

	it.each([
		["a name without an origin", "deployer"],
		["a local scope", "deployer@workspace"],
		["a skill nothing cached", "absent@index:acme"],
	])("refuses %s as a usage error", async (_what, name) => {
		const ws = await remoteDeployer();
		await ws.run();
		const store = join(await tempDir(), "trust.json");
		const run = await cli(["trust", "--skill", name, "--store", store], {
			cwd: ws.cwd,
			env: { SKILLSET_CACHE_DIR: ws.cacheDir },
		});
		expect(run.exitCode).toBe(2);
		expect((await loadTrustStore(store)).listSkills()).toEqual([]);
	});
});
