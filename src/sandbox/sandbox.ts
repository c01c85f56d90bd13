import { spawn } from "node:child_process";
import { accessSync, constants, lstatSync, mkdirSync, realpathSync, statSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join, resolve, sep } from "node:path";
import type { SandboxAvailability } from "../policy/index.ts";
import { isInside } from "../runtime/index.ts";
import { SkillsetError } from "../skill/index.ts";

/** Options for {@link runSandboxed}. */
export interface SandboxOptions {
	/** The one folder the command may write (besides a private `/tmp`); also its working directory. */
	workspace: string;
	/** Paths kept read-only even inside the workspace (skill roots). Relative paths are against the workspace. */
	readOnly?: readonly string[];
	/** False cuts the command off from every network, loopback included. Default true. */
	network?: boolean;
	/** Milliseconds before the whole command is killed. Default 120000. */
	timeoutMs?: number;
	/** Bytes kept from each of stdout and stderr; the rest is read and dropped. Default 1 MiB. */
	maxOutputBytes?: number;
	/** Variables added to the minimal environment (`PATH`, `HOME=/tmp`, `TMPDIR=/tmp`, `LANG`). */
	env?: Readonly<Record<string, string>>;
	/** Aborting kills the whole command. */
	signal?: AbortSignal;
}

/** How a sandboxed command ended and what it printed. */
export interface SandboxResult {
	exitCode: number | null;
	signal: string | null;
	stdout: string;
	stderr: string;
	timedOut: boolean;
	/** True when stdout or stderr went over `maxOutputBytes` and was cut. */
	truncated: boolean;
}

const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_OUTPUT = 1024 * 1024;
const SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/**
 * The writable kernel interfaces of a fresh /proc, kept read-only: run as root (where bwrap makes no user
 * namespace), a command could otherwise set `kernel.core_pattern` (a program the kernel runs as host root on the
 * next crash), `binfmt_misc`, `modprobe`, sysrq and the rest. /sys is read-only already (under `/`).
 */
const KERNEL_INTERFACES: readonly string[] = [
	"sys",
	"sysrq-trigger",
	"irq",
	"bus",
	"fs",
	"pressure",
	"acpi",
	"scsi",
	"asound",
	"driver",
	"dynamic_debug",
	"tty",
].map((name) => `/proc/${name}`);

// A probe's answer per bwrap binary: whether it can actually build a sandbox here (user namespaces may be off).
const PROBES = new Map<string, Promise<string | undefined>>();

/**
 * Finds an OS sandbox: on Linux, a `bwrap` (bubblewrap) on `PATH` that can actually start a sandbox with the
 * flags {@link runSandboxed} uses. Anything else is `available: false` with the reason.
 */
export async function detectSandbox(): Promise<SandboxAvailability> {
	if (process.platform !== "linux")
		return { available: false, reason: `no OS sandbox on ${process.platform}: only Linux with bubblewrap` };
	const path = findExecutable("bwrap", process.env.PATH ?? SYSTEM_PATH);
	if (!path) return { available: false, reason: "bubblewrap (bwrap) is not installed or not on PATH" };
	let probe = PROBES.get(path);
	if (!probe) {
		probe = probeBwrap(path);
		PROBES.set(path, probe);
	}
	const failure = await probe;
	if (failure !== undefined) return { available: false, reason: `${path} cannot start a sandbox: ${failure}` };
	return { available: true, kind: "bwrap", path };
}

/**
 * Runs `command` with `/bin/sh -c` inside a bubblewrap sandbox: the whole file system read-only, the workspace
 * writable, a private `/tmp` and `/run`, every `readOnly` path (and its folders between it and the workspace) read-only again
 * on top, the kernel's interfaces in /proc (`/proc/sys`, sysrq, …) read-only, no network when `network` is false, no
 * capabilities, a new session and PID namespace, a cleared
 * environment, no stdin, and the workspace as working directory. The timeout and `signal` kill the whole process
 * tree. Throws `SkillsetError` `sandbox.unavailable` when there is no sandbox, or a read-only path cannot be kept
 * read-only.
 */
export async function runSandboxed(command: string, options: SandboxOptions): Promise<SandboxResult> {
	if (typeof command !== "string") throw new SkillsetError("invalid-argument", "command must be a string");
	const sandbox = await detectSandbox();
	if (!sandbox.available) throw new SkillsetError("sandbox.unavailable", sandbox.reason, { data: sandbox });
	const workspace = realDirectory(options.workspace);
	const args = [
		"--ro-bind",
		"/",
		"/",
		"--dev",
		"/dev",
		"--proc",
		"/proc",
		...KERNEL_INTERFACES.flatMap((path) => ["--ro-bind-try", path, path]),
		"--tmpfs",
		"/tmp",
		// Sockets of services (D-Bus, databases, Docker) live in /run: a private one keeps them out of reach,
		// except the resolver's folder, which name lookups need.
		"--tmpfs",
		"/run",
		"--ro-bind-try",
		"/run/systemd/resolve",
		"/run/systemd/resolve",
		"--bind",
		workspace,
		workspace,
		...readOnlyBinds(workspace, options.readOnly ?? []).flatMap((path) => ["--ro-bind", path, path]),
		...(options.network === false ? ["--unshare-net"] : []),
		"--unshare-pid",
		"--unshare-ipc",
		"--die-with-parent",
		"--new-session",
		"--cap-drop",
		"ALL",
		"--clearenv",
		...Object.entries(environment(workspace, options.env)).flatMap(([key, value]) => ["--setenv", key, value]),
		"--chdir",
		workspace,
		"--",
		"/bin/sh",
		"-c",
		command,
	];
	return run(sandbox.path, args, options);
}

function run(bwrap: string, args: string[], options: SandboxOptions): Promise<SandboxResult> {
	const cap = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
	const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
	if (!(Number.isInteger(cap) && cap >= 0)) throw new SkillsetError("invalid-option", "maxOutputBytes must be ≥ 0");
	if (!(timeoutMs > 0)) throw new SkillsetError("invalid-option", "timeoutMs must be positive");
	return new Promise((done) => {
		// Its own process group, so that a timeout can kill bwrap and everything it started at once.
		const child = spawn(bwrap, args, { stdio: ["ignore", "pipe", "pipe"], detached: true, env: {} });
		const stdout = capped(cap);
		const stderr = capped(cap);
		child.stdout.on("data", stdout.add);
		child.stderr.on("data", stderr.add);
		let timedOut = false;
		const kill = () => {
			try {
				if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
			} catch (error) {
				// ESRCH: the group has already exited; anything else is worth knowing.
				if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
			}
		};
		const timer = setTimeout(() => {
			timedOut = true;
			kill();
		}, timeoutMs);
		const onAbort = () => kill();
		if (options.signal?.aborted) kill();
		else options.signal?.addEventListener("abort", onAbort, { once: true });
		const finish = (exitCode: number | null, signal: string | null, error?: Error) => {
			clearTimeout(timer);
			options.signal?.removeEventListener("abort", onAbort);
			done({
				exitCode,
				signal,
				stdout: stdout.text(),
				stderr: error ? `${stderr.text()}${error.message}\n` : stderr.text(),
				timedOut,
				truncated: stdout.truncated() || stderr.truncated(),
			});
		};
		child.on("error", (error) => finish(null, null, error));
		child.on("close", (code, signal) => finish(code, signal));
	});
}

/** A byte buffer that keeps the first `cap` bytes and remembers whether more came. */
function capped(cap: number): { add: (chunk: Buffer) => void; text: () => string; truncated: () => boolean } {
	const chunks: Buffer[] = [];
	let size = 0;
	let over = false;
	return {
		add: (chunk) => {
			if (size + chunk.length > cap) over = true;
			const room = cap - size;
			if (room <= 0) return;
			const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
			chunks.push(kept);
			size += kept.length;
		},
		text: () => new TextDecoder().decode(trimPartialCharacter(Buffer.concat(chunks), over)),
		truncated: () => over,
	};
}

/** Drops a UTF-8 sequence the cap cut in half, so the text does not end in a replacement character. */
function trimPartialCharacter(bytes: Buffer, cut: boolean): Buffer {
	if (!cut) return bytes;
	let start = bytes.length - 1;
	while (start > 0 && start > bytes.length - 4 && ((bytes[start] ?? 0) & 0xc0) === 0x80) start--;
	const lead = bytes[start] ?? 0;
	const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
	return start + length > bytes.length ? bytes.subarray(0, start) : bytes;
}

function environment(workspace: string, extra: Readonly<Record<string, string>> = {}): Record<string, string> {
	return { PATH: SYSTEM_PATH, HOME: "/tmp", TMPDIR: "/tmp", LANG: "C.UTF-8", ...extra, PWD: workspace };
}

function realDirectory(path: string): string {
	let real: string;
	try {
		real = realpathSync.native(resolve(path));
	} catch (error) {
		throw new SkillsetError("invalid-option", `workspace ${path} does not exist`, { cause: error });
	}
	if (!statSync(real).isDirectory()) throw new SkillsetError("invalid-option", `workspace ${path} is not a folder`);
	if (real === "/") throw new SkillsetError("invalid-option", "the workspace cannot be the root folder");
	return real;
}

/**
 * The real paths to bind read-only, parents before children. Inside the workspace, every folder between the
 * workspace and a read-only path is bound too, so the path cannot be renamed or removed through a parent (a mount
 * point cannot be moved). A path that does not exist yet inside the workspace is created empty first so that it
 * can be bound (otherwise the command could create it and fill it); if that fails, its deepest existing part is
 * bound instead. Paths outside the workspace are read-only already; they are bound again only so that a path under
 * `/tmp` stays visible.
 */
function readOnlyBinds(workspace: string, paths: readonly string[]): string[] {
	const binds = new Set<string>();
	// Every existing folder on the way to `path`, by its real path, when it is inside the workspace.
	const bindChain = (path: string) => {
		for (let current = path; ; current = dirname(current)) {
			const real = realOrUndefined(current);
			if (real !== undefined && real !== workspace && isInside(workspace, real)) binds.add(real);
			if (dirname(current) === current) return;
		}
	};
	for (const given of paths) {
		const path = resolve(workspace, given);
		const real = readablePath(path);
		if (real.rest.length === 0 && !isInside(workspace, real.path)) binds.add(real.path);
		if (real.rest.length > 0 && isInside(workspace, real.path)) {
			try {
				mkdirSync(join(real.path, ...real.rest), { recursive: true });
			} catch (error) {
				if (real.path === workspace)
					throw new SkillsetError("sandbox.unavailable", `cannot keep ${path} read-only in the sandbox`, {
						cause: error,
					});
			}
		}
		if (real.path === workspace && real.rest.length === 0) binds.add(workspace);
		bindChain(path);
	}
	return [...binds].sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : 1));
}

function realOrUndefined(path: string): string | undefined {
	try {
		return realpathSync.native(path);
	} catch {
		return undefined;
	}
}

// A read-only path that cannot even be looked at (a link loop, no permission) cannot be protected: refuse to run.
function readablePath(path: string): { path: string; rest: string[] } {
	try {
		return deepestReal(path);
	} catch (error) {
		throw new SkillsetError("sandbox.unavailable", `cannot keep ${path} read-only in the sandbox`, { cause: error });
	}
}

/** The deepest existing ancestor of `path` (itself included) as a real path, and the missing names below it. */
function deepestReal(path: string): { path: string; rest: string[] } {
	const rest: string[] = [];
	for (let current = path; ; current = dirname(current)) {
		try {
			lstatSync(current);
			return { path: realpathSync.native(current), rest: rest.reverse() };
		} catch (error) {
			const code = (error as NodeJS.ErrnoException).code;
			// A dangling link exists but has no real path: treat it like the missing part it points to.
			if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
			if (dirname(current) === current) return { path: current, rest: rest.reverse() };
			rest.push(current.slice(dirname(current).length).replace(/^\//, ""));
		}
	}
}

function depth(path: string): number {
	return path.split(sep).length;
}

function findExecutable(name: string, searchPath: string): string | undefined {
	for (const dir of searchPath.split(delimiter)) {
		if (!dir || !isAbsolute(dir)) continue;
		const candidate = join(dir, name);
		try {
			accessSync(candidate, constants.X_OK);
			if (statSync(candidate).isFile()) return candidate;
		} catch {
			// Not in this folder: keep looking.
		}
	}
	return undefined;
}

function probeBwrap(path: string): Promise<string | undefined> {
	const args = ["--ro-bind", "/", "/", "--unshare-net", "--unshare-pid", "--die-with-parent", "--new-session"];
	return new Promise((done) => {
		const child = spawn(path, [...args, "--cap-drop", "ALL", "--", "/bin/true"], {
			stdio: ["ignore", "ignore", "pipe"],
			env: {},
			timeout: 10_000,
		});
		let stderr = "";
		child.stderr.on("data", (chunk: Buffer) => {
			if (stderr.length < 2000) stderr += chunk.toString("utf8");
		});
		child.on("error", (error) => done(error.message));
		child.on("close", (code, signal) =>
			done(code === 0 ? undefined : stderr.trim() || `exit ${code ?? signal ?? "unknown"}`),
		);
	});
}
