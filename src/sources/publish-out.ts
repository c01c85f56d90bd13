import { randomBytes } from "node:crypto";
import {
	closeSync,
	constants,
	lstatSync,
	mkdirSync,
	openSync,
	readlinkSync,
	realpathSync,
	renameSync,
	rmdirSync,
	type Stats,
	unlinkSync,
	writeFileSync,
} from "node:fs";
import { isInside } from "../runtime/index.ts";
import { SourceError } from "./errors.ts";

// O_NOFOLLOW: a planted link at any folder publish enters fails the open instead of leading elsewhere.
const DIR_FLAGS = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0);

/**
 * The output folder of `publish`, opened once. Every folder below it is entered one name at a time from an open
 * descriptor without following a link, and proven inside OUT by the kernel's path of the descriptor after the open;
 * files are written as a fresh temporary file (`O_EXCL`: never through a link) renamed over the target in that
 * folder. A link met at any path publish writes, creates or deletes is refused (`publish.unsafe-out`) and nothing is
 * written through it. OUT itself is the user's to name: a link there is followed once, to its real path.
 */
export class PublishOut {
	readonly root: string;
	private readonly folders = new Map<string, number>();

	private constructor(root: string, fd: number) {
		this.root = root;
		this.folders.set("", fd);
	}

	/** Creates OUT when missing and opens it. */
	static open(out: string): PublishOut {
		mkdirSync(out, { recursive: true });
		const root = realpathSync(out);
		const fd = openSync(root, DIR_FLAGS);
		if (whereIs(fd) !== root) {
			closeSync(fd);
			throw unsafe(".", `the output folder ${root} moved or cannot be proven (no /proc?) while it was opened`);
		}
		return new PublishOut(root, fd);
	}

	/**
	 * Refuses, before anything is written, when any of these paths (or a folder above one) is a link, or is not
	 * of the kind publish will write there.
	 */
	check(paths: readonly { path: string; kind: "file" | "folder" }[]): void {
		for (const { path, kind } of paths) {
			const segments = path.split("/");
			for (let i = 1; i <= segments.length; i++) {
				const shown = segments.slice(0, i).join("/");
				const info = this.lstat(shown);
				if (info?.isSymbolicLink()) throw unsafe(shown, `${shown} in the output folder is a symbolic link`);
				const folder = i < segments.length || kind === "folder";
				if (info && folder && !info.isDirectory()) throw unsafe(shown, `${shown} is not a folder`);
				if (info && !folder && !info.isFile()) throw unsafe(shown, `${shown} is not a regular file`);
			}
		}
	}

	/** Writes `bytes` to `path` (POSIX, relative to OUT), creating its folders. */
	write(path: string, bytes: Uint8Array | string): void {
		const { folder, name } = this.split(path);
		const fd = this.folder(folder);
		const info = this.lstat(path);
		if (info?.isSymbolicLink()) throw unsafe(path, `${path} in the output folder is a symbolic link`);
		if (info && !info.isFile()) throw unsafe(path, `${path} is not a regular file`);
		const temporary = `.${name}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
		writeFileSync(`${procPath(fd)}/${temporary}`, bytes, { flag: "wx", mode: 0o644 });
		try {
			// rename replaces whatever is at the name (a link swapped in meanwhile included); it never follows it.
			renameSync(`${procPath(fd)}/${temporary}`, `${procPath(fd)}/${name}`);
		} catch (error) {
			unlinkSync(`${procPath(fd)}/${temporary}`);
			throw error;
		}
	}

	/** Removes the regular file at `path` when there is one (a link there is refused, never followed). */
	remove(path: string): void {
		const info = this.lstat(path);
		if (!info) return;
		if (!info.isFile()) throw unsafe(path, `${path} in the output folder is not a regular file`);
		const { folder, name } = this.split(path);
		unlinkSync(`${procPath(this.folder(folder))}/${name}`);
	}

	/** Removes the folder at `path` when it is there and empty; keeps it otherwise. */
	removeFolderIfEmpty(path: string): void {
		const info = this.lstat(path);
		if (!info?.isDirectory()) return;
		const { folder, name } = this.split(path);
		try {
			rmdirSync(`${procPath(this.folder(folder))}/${name}`);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "ENOTEMPTY") throw error;
		}
	}

	/** Closes every descriptor. */
	close(): void {
		for (const fd of this.folders.values()) closeSync(fd);
		this.folders.clear();
	}

	/** The descriptor of folder `path` (created when missing), reached from OUT one name at a time. */
	private folder(path: string): number {
		const open = this.folders.get(path);
		if (open !== undefined) return open;
		const { folder, name } = this.split(path);
		const parent = this.folder(folder);
		const at = `${procPath(parent)}/${name}`;
		try {
			mkdirSync(at, { mode: 0o755 });
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
		}
		let fd: number;
		try {
			fd = openSync(at, DIR_FLAGS);
		} catch (error) {
			const code = (error as NodeJS.ErrnoException).code;
			if (code === "ELOOP" || code === "ENOTDIR")
				throw unsafe(path, `${path} in the output folder is a link or not a folder`);
			throw error;
		}
		const real = whereIs(fd);
		if (real === undefined || real === this.root || !isInside(this.root, real)) {
			closeSync(fd);
			throw unsafe(path, `${path} resolved outside the output folder while it was opened`);
		}
		this.folders.set(path, fd);
		return fd;
	}

	private lstat(path: string): Stats | undefined {
		const { folder, name } = this.split(path);
		const known = this.folders.get(folder);
		// Below a folder not yet opened, the path is checked from OUT's descriptor; links above were refused first.
		const base = known === undefined ? `${procPath(this.folders.get("") as number)}/${folder}` : procPath(known);
		try {
			return lstatSync(`${base}/${name}`);
		} catch (error) {
			const code = (error as NodeJS.ErrnoException).code;
			if (code === "ENOENT" || code === "ENOTDIR") return undefined;
			throw error;
		}
	}

	private split(path: string): { folder: string; name: string } {
		const at = path.lastIndexOf("/");
		return { folder: at < 0 ? "" : path.slice(0, at), name: path.slice(at + 1) };
	}
}

function procPath(fd: number): string {
	return `/proc/self/fd/${fd}`;
}

function whereIs(fd: number): string | undefined {
	try {
		return readlinkSync(procPath(fd));
	} catch {
		return undefined;
	}
}

function unsafe(_path: string, message: string): SourceError {
	return new SourceError("publish.unsafe-out", `${message}; publish never writes through a link or outside OUT`);
}
