// The `discovery/` stage: roots and scopes, the bounded walk, identity and collisions, the immutable index, the
// report, incremental rescans and watching. Later stages import only from this file.

export { defaultCacheDir } from "./cache-dir.ts";
export type { DiscoveryCode, DiscoveryCodeInfo, DiscoveryDiagnostic, DiscoveryOnlyCode } from "./codes.ts";
export { DISCOVERY_CODES } from "./codes.ts";
export type { Discovery, DiscoveryResult } from "./discover.ts";
export { createDiscovery, discover } from "./discover.ts";
export type { Candidate, DirEntry, ListDir } from "./folder.ts";
export { listDir } from "./folder.ts";
export { HelperThread } from "./helper-thread.ts";
export type { LoadedSkill, LoadOptions } from "./load.ts";
export type { DiscoverOptions } from "./options.ts";
export type { FilePin, OriginLoad, OriginProvider, OriginSkill } from "./origin-provider.ts";
export type { DiscoveryReport, RootReport, SkillSummary, StatusCounts } from "./report.ts";
export type { CollisionPolicy, IndexedSkill, RejectedSkill, SkillStatus } from "./resolve.ts";
export { COLLISION_POLICIES } from "./resolve.ts";
export type { DiscoveryRoot, Preset, PresetName, RootOptions, RootSource, Scope } from "./roots.ts";
export { DEFAULT_CONVENTIONS, DEFAULT_SCOPE_ORDER, PRESET_NAMES, PRESETS, resolveRoots } from "./roots.ts";
export type { ScannedFile, ScanStats } from "./scan-stats.ts";
export { takeScanStats } from "./scan-stats.ts";
export { editDistance, SkillIndex } from "./skill-index.ts";
export type { RootWalk, WalkLimits, WalkOptions } from "./walk.ts";
export { DEFAULT_EXPLICIT_WALK_LIMITS, DEFAULT_WALK_LIMITS, walkRoot } from "./walk.ts";
// The watcher's values are a second entry (./watch.ts): a scan never needs them, and start-up pays per module.
export type { IndexChanges, SkillWatcher, WatchEvent, WatchOptions } from "./watch.ts";
