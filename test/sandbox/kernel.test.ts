import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, chown, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { detectSandbox, runSandboxed } from "skillset";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../helpers/temp.ts";

// Issue 18: as root, /proc/sys/kernel/core_pattern opened for writing inside the sandbox, which would run a
// program as host root on the next crash. The probe opens each kernel interface for appending (it never writes)
// and reports the ones it could open; it runs as root and as nobody.

const DIST = join(import.meta.dirname, "..", "..", "dist", "index.js");
const NOBODY = ["--reuid=65534", "--regid=65534", "--clear-groups"];

// Every file under /proc (not the processes' own folders) and /sys, and a few named ones: each one that opens for
// writing is printed. /dev's null, zero, full and the random devices are meant to be writable. A redirection on the
// `true` builtin makes the shell itself open the file (O_WRONLY | O_APPEND | O_CREAT, as `exec 3>>` does) and
// close it again, and a failed one does not end the shell: no process per file (a subshell for each of some 11,000
// files took over a minute on a busy 2-core machine).
const PROBE = `
for f in /proc/sys/kernel/core_pattern /proc/sys/kernel/modprobe /proc/sys/vm/drop_caches /proc/sysrq-trigger \\
  /proc/sys/fs/binfmt_misc/register /proc/sys/kernel/sysrq /sys/kernel/uevent_helper /proc/irq/default_smp_affinity; do
  if [ -e "$f" ] && true 2>/dev/null 3>>"$f"; then echo "WRITABLE $f"; fi
done
find /proc /sys -maxdepth 5 \\( -path '/proc/[0-9]*' -o -path /proc/self -o -path /proc/thread-self \\) -prune \\
  -o -type f -print 2>/dev/null | while read -r f; do
  if true 2>/dev/null 3>>"$f"; then echo "WRITABLE $f"; fi
done
echo x > in-workspace.txt && echo PROBE-DONE
`;

let rootWorkspace: string;
let nobodyWorkspace: string;

beforeAll(async () => {
	expect((await detectSandbox()).available).toBe(true);
	rootWorkspace = await tempDir();
	nobodyWorkspace = await tempDir();
	await chown(nobodyWorkspace, 65534, 65534);
	await chmod(join(nobodyWorkspace, ".."), 0o755).catch(() => undefined);
});

function setpriv(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
	return new Promise((resolve) => {
		execFile("setpriv", [...NOBODY, ...args], { timeout: 60_000 }, (error, stdout, stderr) => {
			resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
		});
	});
}

describe("the sandbox keeps the kernel's interfaces read-only", { timeout: 90_000 }, () => {
	it("as root: nothing under /proc or /sys opens for writing, and the workspace still does", async () => {
		expect(process.getuid?.()).toBe(0);
		const result = await runSandboxed(PROBE, { workspace: rootWorkspace, timeoutMs: 60_000 });
		expect(result.stdout).toContain("PROBE-DONE");
		expect(result.stdout.split("\n").filter((line) => line.startsWith("WRITABLE"))).toEqual([]);
		expect(await readFile(join(rootWorkspace, "in-workspace.txt"), "utf8")).toBe("x\n");
	});

	it("as nobody (setpriv), through the built package: the same", async () => {
		expect(existsSync(DIST), "run `npm run build` first").toBe(true);
		const script = join(nobodyWorkspace, "probe.mjs");
		await writeFile(
			script,
			`import { runSandboxed } from ${JSON.stringify(DIST)};
const result = await runSandboxed(${JSON.stringify(PROBE)}, { workspace: ${JSON.stringify(nobodyWorkspace)}, timeoutMs: 60000 });
process.stdout.write(JSON.stringify({ uid: process.getuid(), ...result }));`,
		);
		await chown(script, 65534, 65534);
		const run = await setpriv([process.execPath, script]);
		expect(run.code, run.stderr).toBe(0);
		const result = JSON.parse(run.stdout);
		expect(result.uid).toBe(65534);
		expect(result.stdout).toContain("PROBE-DONE");
		expect(result.stdout.split("\n").filter((line: string) => line.startsWith("WRITABLE"))).toEqual([]);
		expect(await readFile(join(nobodyWorkspace, "in-workspace.txt"), "utf8")).toBe("x\n");
	});
});
