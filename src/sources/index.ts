// The `sources/` stage: skills from elsewhere. Fetching (git, HTTP, files), digest verification, hardened archive
// unpacking, well-known indexes, installs with their lock records, updates, removal and publishing.

export type { CachedSkill, OriginState } from "./cache.ts";
export { defaultCacheDir, OriginCache } from "./cache.ts";
export { createCachedOrigin } from "./cached-origin.ts";
export type { SourceErrorCode } from "./errors.ts";
export { SourceError } from "./errors.ts";
export type { FetchLimits } from "./fetch.ts";
export { DEFAULT_FETCH_LIMITS, fetchBytes } from "./fetch.ts";
export type { ManifestEntry } from "./index-rfc.ts";
export { skillDigest } from "./index-rfc.ts";
export type { AddOptions, AddResult, InstallOutcome } from "./install.ts";
export { addSkills } from "./install.ts";
export type { IndexOriginOptions } from "./origin-index.ts";
export { createIndexOrigin } from "./origin-index.ts";
export type { PublishedEntry, PublishOptions, PublishResult, PublishSkill } from "./publish.ts";
export { publishSkills } from "./publish.ts";
export type { OmitReason } from "./publish-files.ts";
export type { RemoveOptions, RemoveOutcome } from "./remove.ts";
export { removeSkills } from "./remove.ts";
export type { SkillReview } from "./review.ts";
export { findSkillDirs, reviewSkill } from "./review.ts";
export type { SourceSpec } from "./source.ts";
export { parseSource } from "./source.ts";
export type { SourceRecord, StagedSource, StageOptions } from "./stage.ts";
export { stageSource } from "./stage.ts";
export type { TarEntry, TarFile } from "./tar.ts";
export { readTar, writeTar } from "./tar.ts";
export type { ArchiveFile, ArchiveKind } from "./unpack.ts";
export { archiveKindOf, readArchive, writeArchiveFiles } from "./unpack.ts";
export type { UnpackLimits } from "./unpack-limits.ts";
export { DEFAULT_UNPACK_LIMITS } from "./unpack-limits.ts";
export type { OutdatedLine, UpdateOptions, UpdateOutcome, UpdateQuestion } from "./update.ts";
export { checkOutdated, updateSkills } from "./update.ts";
export type { IndexEntry, IndexFetchOptions, IndexShape, SkillIndexDocument } from "./well-known.ts";
export {
	describeIndexShape,
	fetchSkillIndex,
	INDEX_PATH,
	INDEX_SCHEMA_V2,
	indexUrlOf,
	parseSkillIndex,
} from "./well-known.ts";
