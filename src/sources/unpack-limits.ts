// The caps on an archive, read by both archive readers (`zip.ts`, `tar.ts` through `unpack.ts`) and by the checks
// that keep an index entry or a published skill within what an install would accept.

/** Caps that make a hostile archive fail fast. */
export interface UnpackLimits {
	maxEntries: number;
	maxFileBytes: number;
	maxTotalBytes: number;
	/** Unpacked bytes per packed byte, beyond which an archive is a bomb. */
	maxRatio: number;
}

/** 2,000 entries, 8 MiB a file, 64 MiB in all, 100:1. */
export const DEFAULT_UNPACK_LIMITS: UnpackLimits = {
	maxEntries: 2000,
	maxFileBytes: 8 << 20,
	maxTotalBytes: 64 << 20,
	maxRatio: 100,
};
