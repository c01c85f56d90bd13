// Refusals of the contained reader: errno values mapped to codes and to messages a model can act on.

/** Why a contained read was refused. */
export type ContainCode =
	| "resource.invalid-path"
	| "resource.outside"
	| "resource.symlink"
	| "resource.hardlink"
	| "resource.not-found"
	| "resource.not-file"
	| "resource.too-large"
	| "resource.changed"
	| "resource.unreadable"
	| "resource.unverifiable";

/** A refusal: the code, and a message a model can act on. */
export interface ContainError {
	ok: false;
	code: ContainCode;
	message: string;
}

/** The refusal when the system cannot show where an opened descriptor is (no `/proc/self/fd`). */
export function unverifiable(): ContainError {
	return refusal(
		"resource.unverifiable",
		"this system cannot show where an opened file really is (no /proc/self/fd), so containment cannot be proven",
	);
}

/** The errno name of a thrown error, or `error`. */
export function errorCode(error: unknown): string {
	return (error as NodeJS.ErrnoException | undefined)?.code ?? "error";
}

/** The refusal code for a failed open, lstat or listing. */
export function openCode(error: unknown): ContainCode {
	switch (errorCode(error)) {
		case "ENOENT":
		case "ENOTDIR":
			return "resource.not-found";
		case "ELOOP":
			return "resource.symlink";
		case "EACCES":
		case "EPERM":
		case "EIO":
			return "resource.unreadable";
		default:
			return "resource.changed";
	}
}

/** What a failed open means, in words that follow a quoted path. */
export function describeError(error: unknown): string {
	switch (errorCode(error)) {
		case "ENOENT":
			return "does not exist";
		case "ENOTDIR":
			return "is not inside a folder (a part of its path is not a folder)";
		case "ELOOP":
			return "is a symbolic link; links are not followed";
		case "EACCES":
		case "EPERM":
			return "cannot be read (permission denied)";
		default:
			return `cannot be opened (${errorCode(error)}); it may have changed, try again`;
	}
}

/** A refusal with its code and message. */
export function refusal(code: ContainCode, message: string): ContainError {
	return { ok: false, code, message };
}
