/** Why a source could not be fetched, verified, unpacked or installed. Stable strings, like diagnostic codes. */
export type SourceErrorCode =
	| "source.invalid"
	| "source.not-found"
	| "source.fetch"
	| "source.timeout"
	| "source.redirect"
	| "source.too-large"
	| "source.git"
	| "source.no-skills"
	| "digest.mismatch"
	| "digest.invalid"
	| "archive.format"
	| "archive.corrupt"
	| "archive.absolute"
	| "archive.traversal"
	| "archive.link"
	| "archive.special"
	| "archive.collision"
	| "archive.too-many"
	| "archive.too-large"
	| "archive.ratio"
	| "archive.no-skill-md"
	| "index.invalid"
	| "index.schema"
	| "index.unverified"
	| "index.html"
	| "index.name-mismatch"
	| "install.exists"
	| "install.invalid"
	| "install.refused"
	| "install.needs-approval"
	| "install.unknown"
	| "install.io"
	| "install.outside"
	| "install.modified"
	| "install.unpinned"
	| "lock.invalid"
	| "publish.link"
	| "publish.credential"
	| "publish.invalid"
	| "publish.description"
	| "publish.unsafe-out";

/** A problem with one source or skill: carried as data by every result, thrown only inside the stage. */
export class SourceError extends Error {
	readonly code: SourceErrorCode;

	constructor(code: SourceErrorCode, message: string, options: { cause?: unknown } = {}) {
		super(message, { cause: options.cause });
		this.name = "SourceError";
		this.code = code;
	}
}

/** `{ code, message }` of a SourceError, or `fallback` for anything else (an I/O error, say). */
export function describeFailure(error: unknown, fallback: SourceErrorCode): { code: SourceErrorCode; message: string } {
	if (error instanceof SourceError) return { code: error.code, message: error.message };
	const errno = (error as NodeJS.ErrnoException | null)?.code;
	return { code: fallback, message: `${errno ? `${errno}: ` : ""}${(error as Error)?.message ?? String(error)}` };
}
