import type { SkillResources } from "./resources.ts";

/** How full the session is. */
export interface Watermark {
	active: number;
	maxActive: number;
	tokens: number;
	maxTokens: number;
}

/** Who asks for an activation: the model (through a tool) or the user (a slash command, a mention). */
export type Invoker = "model" | "user";

/** One skill delivered by an activation. */
export interface ActivatedSkill {
	name: string;
	qualifiedName: string;
	/** For a remote skill: its origin (`mcp:<label>`, `index:<label>`). */
	origin?: string;
	/** True when the skill was already in context: the body is not repeated. */
	cached: boolean;
	/** The body without frontmatter; null when cached. */
	body: string | null;
	/** The skill folder (absolute, real). */
	dir: string;
	resources: SkillResources;
	/** Tokens of the rendered block. */
	tokens: number;
	/** The block as the model receives it. */
	text: string;
}

/** A successful activation: the skill (and any dependencies activated first), its text, and the watermark. */
export interface Activation extends ActivatedSkill {
	ok: true;
	/** Dependencies activated by this call, in order, before the skill. */
	dependencies: ActivatedSkill[];
	/** Every block of this activation (dependencies first), joined. */
	fullText: string;
	watermark: Watermark;
}

/** Why an activation was refused. */
export type RefusalCode =
	| "unknown"
	| "unavailable"
	| "not-invocable"
	| "limit"
	| "cycle"
	| "cross-origin"
	| "unreadable"
	| "integrity.mismatch";

/** A refused activation, with what the model can do next. */
export interface ActivationRefusal {
	ok: false;
	code: RefusalCode;
	name: string;
	message: string;
	/** For unknown names: what exists, and the closest matches. */
	available?: string[];
	closest?: string[];
	watermark: Watermark;
	details?: Record<string, unknown>;
}

/** Options for {@link SkillSession.activate}. */
export interface ActivateOptions {
	reason?: string;
	invoker?: Invoker;
}

/** Bytes and tokens delivered per tier. */
export interface TierTotals {
	tier1: { bytes: number; tokens: number };
	tier2: { count: number; bytes: number; tokens: number };
	tier3: { count: number; bytes: number; tokens: number };
}
