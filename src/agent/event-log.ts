import { closeSync, constants, fstatSync, openSync, writeSync } from "node:fs";
import { SkillsetError } from "../skill/index.ts";

/** An append-only JSON-lines file the host writes, opened once. */
export interface EventLog {
	/** The path as given. */
	path: string;
	append(event: unknown): void;
	close(): void;
}

const FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Opens an event log for appending, once: never through a link at its name (`O_NOFOLLOW`), only a regular file
 * with no other name (a hard link to `~/.bashrc` is refused), created private. Later writes go to the file that was
 * opened, so a link or rename made while the agent runs cannot redirect them. Throws `SkillsetError`
 * `invalid-option` (data `{ code: "events.unsafe" }`) with the reason.
 */
export function openEventLog(path: string): EventLog {
	const refuse = (why: string, cause?: unknown): never => {
		throw new SkillsetError("invalid-option", `cannot append events to ${path}: ${why}`, {
			data: { code: "events.unsafe", path },
			cause,
		});
	};
	let fd: number;
	try {
		fd = openSync(path, FLAGS, 0o600);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		return refuse(code === "ELOOP" ? "it is a symbolic link" : code === "ENXIO" ? "it is a FIFO" : String(code), error);
	}
	const stat = fstatSync(fd);
	if (!stat.isFile() || stat.nlink > 1) {
		closeSync(fd);
		refuse(stat.isFile() ? "it has another name (a hard link)" : "it is not a regular file");
	}
	let open = true;
	return {
		path,
		append(event) {
			if (open) writeSync(fd, `${JSON.stringify(event)}\n`);
		},
		close() {
			if (!open) return;
			open = false;
			closeSync(fd);
		},
	};
}
