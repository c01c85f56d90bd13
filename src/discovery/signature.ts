import { lstatSync, type Stats, statSync } from "node:fs";
import type { FileSignature } from "../skill/index.ts";

// What discovery's caches rest on: a file's or folder's signature (dev, ino, size, mtime, ctime) compared with the
// one it had, and the racy-git rule, which keeps a signature from vouching for what was read in the same moment the
// entry last changed. Said once here, for entries kept as objects and for entries kept flat (saved arrays).

/** The signature of a stat result (a new object, fields only). */
export function signatureOf(info: Stats): FileSignature {
	return { dev: info.dev, ino: info.ino, size: info.size, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs };
}

/** True when `info` (a stat result, or a signature) has `signature` in every field; no object is made. */
export function sameSignature(info: FileSignature, signature: FileSignature): boolean {
	// The inode and the times differ first when anything changed: the cheapest way to a "no".
	return (
		info.ino === signature.ino &&
		info.mtimeMs === signature.mtimeMs &&
		info.ctimeMs === signature.ctimeMs &&
		info.size === signature.size &&
		info.dev === signature.dev
	);
}

/** {@link sameSignature} for a signature kept flat: dev, ino, size, mtimeMs, ctimeMs from `row[at]` on. */
export function sameSignatureAt(info: FileSignature, row: ArrayLike<unknown>, at: number): boolean {
	return (
		info.ino === row[at + 1] &&
		info.mtimeMs === row[at + 3] &&
		info.ctimeMs === row[at + 4] &&
		info.size === row[at + 2] &&
		info.dev === row[at]
	);
}

/**
 * True when an entry whose ctime is `ctimeMs` changed no earlier than `time` (the racy-git rule): a change in the same
 * clock tick as a read at `time` leaves the signature as it was, so the signature cannot vouch for what was read.
 *
 * Decided by ctime alone: the kernel sets it to the current time on every change (content, listing, mode, times)
 * and nothing (`utimes`, `touch -d`) can set it, so every change since `time` shows in it, and a later change moves
 * it on. The mtime adds nothing (a write moves ctime too) but can be set anywhere: one set in the future (2099)
 * would count as "just changed" forever, and every rescan would read or list that entry again.
 */
export function changedSince(ctimeMs: number, time: number): boolean {
	return ctimeMs >= time;
}

/**
 * The `dev` of a signature that stands for a failed stat (no device has it): its `ino` says how the stat failed, 0
 * for no entry (a dangling link, a vanished folder), else the error's errno (a link loop, no permission). Such a
 * signature matches while the stat keeps failing the same way, and stops matching once it succeeds.
 */
export const FAILED_DEV = -1;

/** The signature that stands for a stat that failed with `failure` (see {@link statOrFailure}). */
export function failureSignature(failure: number): FileSignature {
	return { dev: FAILED_DEV, ino: failure, size: -1, mtimeMs: -1, ctimeMs: -1 };
}

/**
 * The stat of `path` (following links), or how it failed: 0 for no entry, else the error's errno (NaN when it has
 * none, so it matches nothing). stat-check.ts says the same inline: its helper thread cannot import this.
 */
export function statOrFailure(path: string): Stats | number {
	try {
		return statSync(path, STAT_OPTIONS) ?? 0;
	} catch (error) {
		const errno = (error as NodeJS.ErrnoException).errno;
		return typeof errno === "number" ? errno : Number.NaN;
	}
}

/**
 * True when `path` still has `signature`; false when it is gone or cannot be looked at, unless `signature` stands for
 * that same failure.
 */
export function unchangedNow(path: string, signature: FileSignature): boolean {
	const info = statOrFailure(path);
	if (typeof info === "number") return signature.dev === FAILED_DEV && signature.ino === info;
	return sameSignature(info, signature);
}

// One options object for every stat (a warm run takes one per folder and SKILL.md), with every field Node reads.
const STAT_OPTIONS = { bigint: false, throwIfNoEntry: false } as const;

/** The stat of `path` (following links), or undefined when it is gone or cannot be looked at. */
export function statOrUndefined(path: string): Stats | undefined {
	try {
		return statSync(path, STAT_OPTIONS);
	} catch {
		return undefined;
	}
}

/** The lstat of `path` (not following a last link), or undefined when it is gone or cannot be looked at. */
export function lstatOrUndefined(path: string): Stats | undefined {
	try {
		return lstatSync(path, STAT_OPTIONS);
	} catch {
		return undefined;
	}
}

/**
 * The stat of `path` (following links), or why there is none: "absent" when it or a parent is gone or a parent is
 * not a folder (ENOENT, ENOTDIR: what a walk counts as a root that does not exist), "unusable" for anything else
 * (a link loop, no permission: a walk reports those). A stat with `throwIfNoEntry: false` still throws for these.
 */
export function statState(path: string): Stats | "absent" | "unusable" {
	try {
		return statSync(path, STAT_OPTIONS) ?? "absent";
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "ENOTDIR" ? "absent" : "unusable";
	}
}
