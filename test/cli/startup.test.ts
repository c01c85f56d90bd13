import { spawnSync } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { unbundled } from "../helpers/bundle.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

// Issue 10: start-up pays for every module a command loads. A loader hook lists what the built CLI loads (a chunk of
// its bundle stands for the modules it holds).
const ROOT = join(import.meta.dirname, "..", "..");
const BIN = join(ROOT, "dist", "cli", "bin.js");
let root: string;
let register: string;
let requireReport: string;

beforeAll(async () => {
	root = await tempDir();
	const hooks = join(root, "hooks.mjs");
	await writeFile(
		hooks,
		'export async function load(url, context, next) { if (url.startsWith("file:")) process.stderr.write("LOADED " + url + "\\n"); return next(url, context); }\n',
	);
	register = join(root, "register.mjs");
	await writeFile(
		register,
		`import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
	);
	// CommonJS packages (yaml) load through require, which the hook does not see: list the require cache at exit.
	requireReport = join(root, "require-report.cjs");
	await writeFile(
		requireReport,
		'process.on("exit", () => { for (const file of Object.keys(require.cache)) process.stderr.write("LOADED file://" + file + "\\n"); });\n',
	);
});

function loaded(cwd: string, ...args: string[]): string[] {
	const run = spawnSync(process.execPath, ["--import", register, "--require", requireReport, BIN, ...args], {
		cwd,
		encoding: "utf8",
		env: { ...process.env, HOME: join(root, "home"), NO_COLOR: "1" },
		timeout: 30_000,
	});
	expect(run.status).toBe(0);
	return unbundled(
		run.stderr
			.split("\n")
			.filter((line) => line.startsWith("LOADED "))
			.map((line) => line.slice("LOADED ".length)),
	);
}

describe("what the CLI loads", () => {
	it("scans an empty workspace without loading the skill, catalog, policy or runtime stages, or yaml", async () => {
		const empty = join(root, "empty");
		await writeTree(empty, { "README.md": "nothing here\n" });
		const modules = loaded(empty, "scan", "--exit-zero");
		expect(modules.some((url) => url.includes("/dist/discovery/"))).toBe(true);
		expect(
			// The error class alone (one small file) is allowed: option checks need it.
			modules.filter(
				(url) =>
					/\/dist\/(skill|catalog|policy|runtime)\/|\/node_modules\/yaml\//.test(url) &&
					!url.endsWith("/dist/skill/errors.js"),
			),
		).toEqual([]);
		// Discovery's further entries load only for the commands that need them (a watching server, catalog, mcp).
		expect(modules.filter((url) => /\/dist\/discovery\/(watch|derived-cache)\.js$/.test(url))).toEqual([]);
	});

	it("loads the skill stage but not yaml for skills the fast path reads", async () => {
		const workspace = join(root, "workspace");
		await writeTree(join(workspace, ".agents", "skills"), { "one/SKILL.md": skillMd("one") });
		const modules = loaded(workspace, "scan", "--exit-zero");
		expect(modules.some((url) => url.includes("/dist/skill/"))).toBe(true);
		expect(modules.filter((url) => url.includes("/node_modules/yaml/"))).toEqual([]);
		// A comment is outside the fast path's shape: then, and only then, the yaml package loads.
		const commented = join(root, "commented");
		await writeTree(join(commented, ".agents", "skills"), {
			"one/SKILL.md": "---\nname: one\n# a comment\ndescription: d\n---\nbody\n",
		});
		expect(loaded(commented, "scan", "--exit-zero").some((url) => url.includes("/node_modules/yaml/"))).toBe(true);
	});

	it("lists from a saved result without loading the skill stage's parser or validator", async () => {
		const workspace = join(root, "warm-list");
		const home = join(root, "warm-home");
		// User roots are looked for in the home folder: it must exist for their absence to be saved.
		await mkdir(home, { recursive: true });
		await writeTree(join(workspace, ".agents", "skills"), { "one/SKILL.md": skillMd("one") });
		// Out of the racy window (a folder or file changed less than 2 s before a scan is not kept in the index; its
		// ctime counts, which no utimes can set back), so the second run reads no folder and no file.
		await new Promise((done) => setTimeout(done, 2500));
		// The package's bin with the require cache listed at exit: every chunk of the bundle loads through require.
		const bin = join(ROOT, "dist", "cli", "bin.cjs");
		const list = () => {
			const run = spawnSync(process.execPath, ["--require", requireReport, bin, "list"], {
				cwd: workspace,
				encoding: "utf8",
				env: { ...process.env, HOME: home, NO_COLOR: "1" },
				timeout: 30_000,
			});
			expect([run.status, run.stdout]).toEqual([0, expect.stringContaining("one  workspace")]);
			const urls = run.stderr.split("\n").filter((line) => line.startsWith("LOADED "));
			return unbundled(urls.map((line) => line.slice("LOADED ".length)));
		};
		expect(list().some((url) => url.endsWith("/dist/discovery/load.js"))).toBe(true);
		const warm = list();
		expect(warm.some((url) => url.endsWith("/dist/discovery/warm-read.js"))).toBe(true);
		expect(warm.filter((url) => url.endsWith("/dist/discovery/load.js"))).toEqual([]);
		// Only the skill stage's tables (codes, YAML bounds): a saved result is checked, not parsed.
		expect(
			warm.filter((url) => url.includes("/dist/skill/") && !/\/(codes|yaml-limits|errors)\.js$/.test(url)),
		).toEqual([]);
	});

	it("validates one skill's folder without loading the discovery stage", async () => {
		const workspace = join(root, "validate-one");
		await writeTree(workspace, { "one/SKILL.md": skillMd("one") });
		const modules = loaded(workspace, "validate", "one");
		expect(modules.some((url) => url.includes("/dist/skill/"))).toBe(true);
		expect(modules.filter((url) => url.includes("/dist/discovery/"))).toEqual([]);
		// A folder of skills still finds them through discovery.
		expect(loaded(workspace, "validate", ".").some((url) => url.includes("/dist/discovery/"))).toBe(true);
	});
});

describe("the package's bin", () => {
	// Node's ES module loader (resolve, translate, link, a facade per builtin) costs an ES module entry a large part
	// of its start-up; the bin is CommonJS so that a command never starts it. Node lists its internal modules as it
	// loads them: the loader's module jobs appear once any ES module loads.
	const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { bin: Record<string, string> };
	const bin = join(ROOT, manifest.bin.skillset ?? "missing");

	let internalReport: string;
	beforeAll(async () => {
		internalReport = join(root, "internal-report.cjs");
		await writeFile(
			internalReport,
			'process.on("exit", () => { for (const name of process.moduleLoadList) process.stderr.write(name + "\\n"); });\n',
		);
	});

	function esmLoaded(cwd: string, ...args: string[]): string[] {
		const run = spawnSync(process.execPath, ["--require", internalReport, bin, ...args], {
			cwd,
			encoding: "utf8",
			env: { ...process.env, HOME: join(root, "home"), SKILLSET_CACHE_DIR: join(root, "cache"), NO_COLOR: "1" },
			timeout: 30_000,
		});
		expect(run.status, run.stderr).toBe(0);
		return run.stderr.split("\n").filter((line) => /internal\/modules\/esm\/(module_job|translators)/.test(line));
	}

	it("runs scan, validate and list without starting Node's ES module loader", async () => {
		const workspace = join(root, "commonjs");
		await writeTree(join(workspace, ".agents", "skills"), { "one/SKILL.md": skillMd("one") });
		expect(esmLoaded(workspace, "scan", "--exit-zero")).toEqual([]);
		expect(esmLoaded(workspace, "validate", ".agents/skills/one")).toEqual([]);
		// Cold (it writes the index), then warm (it reads it).
		expect(esmLoaded(workspace, "list")).toEqual([]);
		expect(esmLoaded(workspace, "list")).toEqual([]);
		// The ES module entry kept for `node dist/cli/bin.js` does start it (so the check above can see it).
		expect(
			spawnSync(process.execPath, ["--require", internalReport, BIN, "--version"], { encoding: "utf8" }).stderr,
		).toMatch(/internal\/modules\/esm\/module_job/);
	});

	it("writes to a file without setting up Node's output streams, and still to stderr when it must", async () => {
		const workspace = join(root, "to-a-file");
		await writeTree(join(workspace, ".agents", "skills"), { "one/SKILL.md": skillMd("one") });
		const loadedWith = (out: "file" | "pipe", ...args: string[]) => {
			const file = join(root, "out.txt");
			const fd = openSync(file, "w");
			const list = join(root, "internal-modules.txt");
			const report = join(root, "internal-to-file.cjs");
			const code = `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.join("\\n")));\n`;
			return writeFile(report, code).then(() => {
				const run = spawnSync(process.execPath, ["--require", report, bin, ...args], {
					cwd: workspace,
					encoding: "utf8",
					env: { ...process.env, HOME: join(root, "home"), SKILLSET_CACHE_DIR: join(root, "cache"), NO_COLOR: "1" },
					stdio: ["ignore", out === "file" ? fd : "pipe", "pipe"],
					timeout: 30_000,
				});
				closeSync(fd);
				const stdout = out === "file" ? readFileSync(file, "utf8") : run.stdout;
				return { status: run.status, stdout, stderr: run.stderr, modules: readFileSync(list, "utf8").split("\n") };
			});
		};
		const toFile = await loadedWith("file", "list");
		const toPipe = await loadedWith("pipe", "list");
		expect(toFile.stdout).toContain("one  workspace");
		expect(toFile.stdout).toBe(toPipe.stdout);
		expect([toFile.status, toFile.stderr]).toEqual([0, ""]);
		// Node's stream for a file (or a pipe on stderr) loads only when something is written to it.
		expect(toFile.modules.filter((name) => /sync_write_stream|NativeModule net$/.test(name))).toEqual([]);
		expect(toPipe.modules).toContain("NativeModule net");
		// A usage mistake still reaches stderr, after the output written to the file (none here).
		const usage = await loadedWith("file", "list", "--no-such-flag");
		expect(usage.status).toBe(2);
		expect(usage.stderr).toMatch(/^skillset: .*--no-such-flag/);
		expect(usage.stdout).toBe("");
	});

	it("settles a warm run's settings and roots without loading the promise file API", async () => {
		// A handful of "is it there" stats (a config file, a .git folder up the tree, the roots) once cost a warm run
		// `node:fs/promises` and four thread-pool threads started for them.
		const workspace = join(root, "sync-settings");
		await writeTree(join(workspace, ".agents", "skills"), { "one/SKILL.md": skillMd("one") });
		await mkdir(join(workspace, "sub", ".claude", "skills"), { recursive: true });
		const list = join(root, "sync-modules.txt");
		const report = join(root, "sync-report.cjs");
		await writeFile(
			report,
			`process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.join("\\n")));\n`,
		);
		const run = (...args: string[]) => {
			const result = spawnSync(process.execPath, ["--require", report, bin, ...args], {
				cwd: workspace,
				encoding: "utf8",
				env: { ...process.env, HOME: join(root, "home"), SKILLSET_CACHE_DIR: join(root, "cache"), NO_COLOR: "1" },
				timeout: 30_000,
			});
			expect(result.status, result.stderr).toBe(0);
			return { stdout: result.stdout, modules: readFileSync(list, "utf8").split("\n") };
		};
		// Out of the racy window, so that each second run is warm (a cold one reads SKILL.md files with the promise API).
		await new Promise((done) => setTimeout(done, 2500));
		for (const args of [["list"], ["list", "--root", "sub/.claude/skills"], ["scan", "--exit-zero"]]) {
			run(...args);
			const { stdout, modules } = run(...args);
			expect(stdout).toContain("one");
			expect(modules.filter((name) => /^NativeModule (fs\/promises|internal\/fs\/promises)$/.test(name))).toEqual([]);
			expect(modules).toContain("NativeModule internal/fs/utils");
		}
	});
});
