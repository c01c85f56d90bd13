import type { FrontmatterMap } from "./parsed-yaml.ts";
import type { PermissionManifest } from "./permissions.ts";

/** What a skill declares, read from its frontmatter. Strings are trimmed; optional fields appear when set. */
export interface SkillProperties {
	/** The skill's id: its declared name (trimmed, NFKC), or under `lenient` the directory name when unusable. */
	name: string;
	/** The name as written, when it differs from `name`; a display title. */
	declaredName?: string;
	description: string;
	license?: string;
	compatibility?: string;
	/** String values; other scalars keep their source text (`1.0` stays "1.0"). */
	metadata?: Record<string, string>;
	/** Tool patterns from the space-separated string (or list). Pre-approval, never more than the host allows. */
	allowedTools?: string[];
	whenToUse?: string;
	argumentHint?: string;
	disableModelInvocation?: boolean;
	userInvocable?: boolean;
	model?: string;
	/** WorkBuddy display title. */
	title?: string;
	/** WorkBuddy triggers: when the skill should be read. */
	readWhen?: string[];
	agentCreated?: boolean;
	/** Skills to activate first. */
	dependsOn?: string[];
	/** The declared permission block as written. */
	permissions?: FrontmatterMap;
	/** The `permissions` block, parsed (the empty manifest when it is invalid); absent when not declared. */
	manifest?: PermissionManifest;
	/** Every other field, as written: allowed or unknown extensions. */
	extra: FrontmatterMap;
}
