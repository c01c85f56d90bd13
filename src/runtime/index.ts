// The `runtime/` stage (tiers 2 and 3): sessions, activation, contained resource reads, integrity, the reference
// graph and events. Later stages import only from this file.

export { writeFileAtomic } from "./atomic-write.ts";
export type { ContainedFile, ContainOperations, ContainOptions, OpenedRoot } from "./contain.ts";
export {
	checkRelativePath,
	DEFAULT_MAX_RESOURCE_BYTES,
	isInside,
	NODE_CONTAIN_OPERATIONS,
	readContained,
} from "./contain.ts";
export type { AsyncContainOptions, ContainedRead } from "./contain-async.ts";
export { readContainedAsync } from "./contain-async.ts";
export type { ContainCode, ContainError } from "./contain-errors.ts";
export { DEFAULT_HELD_ROOTS, HeldRoots } from "./contain-held.ts";
export type { ContainedEntry } from "./contain-list.ts";
export { containedEntry, listContained } from "./contain-list.ts";
export type { TreeError, TreeFile, TreeReadOptions } from "./contain-tree.ts";
export { ContainedTree, openContainedTree } from "./contain-tree.ts";
export type { Cost, EventSink, SkillEvent, StampedEvent } from "./events.ts";
export { createJsonlSink } from "./events.ts";
export { withFileLock } from "./file-lock.ts";
export type { LockedFile, LockedSkill, LockedSource, PackageDifference, PackageHash, SkillsLock } from "./integrity.ts";
export {
	comparePackage,
	createLock,
	hashPackage,
	LOCK_FILE_NAME,
	MAX_LOCK_FILE_BYTES,
	packageDigest,
	parseLock,
	renderLock,
	sha256,
	sortedPaths,
} from "./integrity.ts";
export type { IntegrityOptions } from "./load-skill.ts";
export { mediaTypeOf } from "./media-type.ts";
export { NotRegularFileError, readRegularFile } from "./read-regular.ts";
export type { ReferenceCode, ReferenceEdge, ReferenceGraph } from "./refs.ts";
export { buildReferenceGraph, REFERENCE_CODES } from "./refs.ts";
export type { RenderableActivation } from "./render.ts";
export { isSkillContent, renderActivation } from "./render.ts";
export type { ReadResourceOptions, ResourceRead, ResourceReadError, ResourceReadOk } from "./resource-read.ts";
export type { ListResourcesOptions, SkillResources } from "./resources.ts";
export { allResources, listResources } from "./resources.ts";
export type { SessionOptions } from "./session.ts";
export { createSession, SkillSession } from "./session.ts";
export type {
	ActivatedSkill,
	ActivateOptions,
	Activation,
	ActivationRefusal,
	Invoker,
	RefusalCode,
	TierTotals,
	Watermark,
} from "./session-types.ts";
