import { closeSync, constants, fstatSync, openSync, writeSync } from "node:fs";
import { SkillsetError } from "../skill/index.ts";

/** Bytes and tokens that entered the model's context. */
export interface Cost {
	bytes: number;
	tokens: number;
}

/** Typed runtime events. They carry sizes and names, never file contents or secrets. */
export type SkillEvent =
	| { type: "discovery.completed"; skills: number; rejected: number; shadowed: number; ms: number }
	| { type: "skill.rejected"; file: string; codes: string[] }
	| { type: "skill.shadowed"; name: string; by: string }
	| ({ type: "catalog.built"; skills: number; omitted: number; truncated: number } & Cost)
	| ({
			type: "skill.activated";
			name: string;
			qualifiedName: string;
			cached: boolean;
			reason?: string;
			/** For a remote skill: its origin. */
			origin?: string;
	  } & Cost)
	| { type: "skill.activation.refused"; name: string; code: string }
	| ({ type: "skill.resource.loaded"; name: string; path: string; binary: boolean; origin?: string } & Cost)
	| { type: "skill.resource.refused"; name: string; path: string; code: string; origin?: string }
	| { type: "context.compacted"; active: number }
	| { type: "permission.decision"; tool: string; decision: "allow" | "ask" | "deny"; rule: string };

/** An event as delivered: the event, when, and which session. */
export type StampedEvent = SkillEvent & { time: string; session: string };

/** Where events go. */
export type EventSink = (event: StampedEvent) => void;

const APPEND =
	constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * A sink that appends one JSON object per line to `path` (synchronously, so a crash loses nothing). The file is
 * never opened through a link at its name and must be a regular file with no other name; otherwise the append
 * throws `SkillsetError` `invalid-option`, so events never land in a file someone pointed the log at.
 */
export function createJsonlSink(path: string): EventSink {
	return (event) => {
		let fd: number;
		try {
			fd = openSync(path, APPEND, 0o600);
		} catch (error) {
			throw new SkillsetError("invalid-option", `cannot append events to ${path}`, { cause: error });
		}
		try {
			const stat = fstatSync(fd);
			if (!stat.isFile() || stat.nlink > 1)
				throw new SkillsetError("invalid-option", `cannot append events to ${path}: not a regular file of its own`);
			writeSync(fd, `${JSON.stringify(event)}\n`);
		} finally {
			closeSync(fd);
		}
	};
}
