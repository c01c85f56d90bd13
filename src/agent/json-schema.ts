/**
 * The JSON Schema subset host tools may use for their inputs (draft 2020-12 keywords that describe data; no `$ref`).
 * `format` and annotations are not checked.
 */
export interface AgentJsonSchema {
	type?: JsonType | JsonType[];
	description?: string;
	properties?: Record<string, AgentJsonSchema>;
	required?: string[];
	additionalProperties?: boolean | AgentJsonSchema;
	items?: AgentJsonSchema;
	enum?: unknown[];
	const?: unknown;
	minimum?: number;
	maximum?: number;
	minLength?: number;
	maxLength?: number;
	pattern?: string;
	minItems?: number;
	maxItems?: number;
	anyOf?: AgentJsonSchema[];
	oneOf?: AgentJsonSchema[];
	allOf?: AgentJsonSchema[];
	title?: string;
	format?: string;
	default?: unknown;
	examples?: unknown[];
	$schema?: string;
}

/** The JSON types. */
export type JsonType = "object" | "array" | "string" | "number" | "integer" | "boolean" | "null";

const MAX_DEPTH = 32;

/**
 * Checks `value` against `schema` and returns every problem, each naming where it is (`input.rows[2]`), in words a
 * model can act on. An empty list means valid. Nesting deeper than 32 levels is itself a problem.
 */
export function validateJson(schema: AgentJsonSchema, value: unknown, where = "input", depth = 0): string[] {
	if (depth > MAX_DEPTH) return [`${where} is nested too deeply`];
	const problems: string[] = [];
	const types = schema.type === undefined ? undefined : Array.isArray(schema.type) ? schema.type : [schema.type];
	if (types && !types.some((type) => hasType(value, type))) {
		return [`${where} must be ${types.map(article).join(" or ")}`];
	}
	if (schema.enum && !schema.enum.some((option) => sameJson(option, value))) {
		problems.push(`${where} must be one of: ${schema.enum.map((option) => JSON.stringify(option)).join(", ")}`);
	}
	if ("const" in schema && !sameJson(schema.const, value))
		problems.push(`${where} must be ${JSON.stringify(schema.const)}`);
	if (typeof value === "number") problems.push(...numberProblems(schema, value, where));
	if (typeof value === "string") problems.push(...stringProblems(schema, value, where));
	if (Array.isArray(value)) problems.push(...arrayProblems(schema, value, where, depth));
	else if (isObject(value)) problems.push(...objectProblems(schema, value, where, depth));
	problems.push(...combinatorProblems(schema, value, where, depth));
	return problems;
}

function hasType(value: unknown, type: JsonType): boolean {
	switch (type) {
		case "null":
			return value === null;
		case "array":
			return Array.isArray(value);
		case "object":
			return isObject(value);
		case "integer":
			return typeof value === "number" && Number.isInteger(value);
		case "number":
			return typeof value === "number" && Number.isFinite(value);
		default:
			return typeof value === type;
	}
}

function numberProblems(schema: AgentJsonSchema, value: number, where: string): string[] {
	const problems: string[] = [];
	if (schema.minimum !== undefined && value < schema.minimum)
		problems.push(`${where} must be at least ${schema.minimum}`);
	if (schema.maximum !== undefined && value > schema.maximum)
		problems.push(`${where} must be at most ${schema.maximum}`);
	return problems;
}

function stringProblems(schema: AgentJsonSchema, value: string, where: string): string[] {
	const problems: string[] = [];
	const length = [...value].length;
	if (schema.minLength !== undefined && length < schema.minLength)
		problems.push(`${where} must have at least ${schema.minLength} characters`);
	if (schema.maxLength !== undefined && length > schema.maxLength)
		problems.push(`${where} must have at most ${schema.maxLength} characters`);
	if (schema.pattern !== undefined && !safePattern(schema.pattern).test(value))
		problems.push(`${where} must match ${schema.pattern}`);
	return problems;
}

function arrayProblems(schema: AgentJsonSchema, value: unknown[], where: string, depth: number): string[] {
	const problems: string[] = [];
	if (schema.minItems !== undefined && value.length < schema.minItems)
		problems.push(`${where} must have at least ${schema.minItems} items`);
	if (schema.maxItems !== undefined && value.length > schema.maxItems)
		problems.push(`${where} must have at most ${schema.maxItems} items`);
	const items = schema.items;
	if (items)
		for (const [i, item] of value.entries()) problems.push(...validateJson(items, item, `${where}[${i}]`, depth + 1));
	return problems;
}

function objectProblems(
	schema: AgentJsonSchema,
	value: Record<string, unknown>,
	where: string,
	depth: number,
): string[] {
	const problems: string[] = [];
	const properties = schema.properties ?? {};
	for (const key of schema.required ?? []) if (!Object.hasOwn(value, key)) problems.push(`${where}.${key} is required`);
	for (const [key, item] of Object.entries(value)) {
		const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
		if (property) problems.push(...validateJson(property, item, `${where}.${key}`, depth + 1));
		else if (schema.additionalProperties === false) problems.push(`${where}.${key} is not an accepted property`);
		else if (isObject(schema.additionalProperties))
			problems.push(...validateJson(schema.additionalProperties, item, `${where}.${key}`, depth + 1));
	}
	return problems;
}

function combinatorProblems(schema: AgentJsonSchema, value: unknown, where: string, depth: number): string[] {
	const problems: string[] = [];
	for (const part of schema.allOf ?? []) problems.push(...validateJson(part, value, where, depth + 1));
	if (schema.anyOf && !schema.anyOf.some((part) => validateJson(part, value, where, depth + 1).length === 0))
		problems.push(`${where} matches none of the allowed shapes`);
	if (schema.oneOf) {
		const matching = schema.oneOf.filter((part) => validateJson(part, value, where, depth + 1).length === 0).length;
		if (matching !== 1) problems.push(`${where} must match exactly one allowed shape (it matches ${matching})`);
	}
	return problems;
}

function isObject(value: unknown): value is Record<string, unknown> {
	return value !== null && typeof value === "object" && !Array.isArray(value);
}

function sameJson(a: unknown, b: unknown): boolean {
	if (a === b) return true;
	if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
	return JSON.stringify(a) === JSON.stringify(b);
}

function article(type: JsonType): string {
	return type === "null"
		? "null"
		: type === "array" || type === "object" || type === "integer"
			? `an ${type}`
			: `a ${type}`;
}

/** A schema's pattern as a RegExp; a pattern that does not compile matches nothing (fails closed). */
function safePattern(pattern: string): RegExp {
	try {
		return new RegExp(pattern, "u");
	} catch {
		return /$^/;
	}
}
