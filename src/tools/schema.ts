/** The JSON Schema subset the skill tools use, written as literals (no runtime conversion). */
export interface JsonSchema {
	type: "object" | "string" | "integer" | "number" | "boolean";
	description?: string;
	properties?: Record<string, JsonSchema>;
	required?: string[];
	additionalProperties?: boolean;
	enum?: string[];
	/** An ECMAScript pattern a string must match. */
	pattern?: string;
	maxLength?: number;
	/** The value must match at least one of these. */
	anyOf?: JsonSchema[];
	minimum?: number;
	maximum?: number;
}

/** Checks a tool input against one of the tools' schemas; returns what is wrong, in words a model can act on. */
export function validateInput(schema: JsonSchema, input: unknown, where = "input"): string[] {
	if (schema.anyOf) {
		const problems = schema.anyOf.map((branch) => validateInput(branch, input, where));
		if (problems.some((p) => p.length === 0)) return [];
		return [problems.flat().join(", or ")];
	}
	switch (schema.type) {
		case "object":
			return validateObject(schema, input, where);
		case "string":
			if (typeof input !== "string") return [`${where} must be a string`];
			if (schema.enum && !schema.enum.includes(input)) return [`${where} must be one of: ${schema.enum.join(", ")}`];
			if (schema.maxLength !== undefined && [...input].length > schema.maxLength)
				return [`${where} must be at most ${schema.maxLength} characters`];
			if (schema.pattern !== undefined && !new RegExp(schema.pattern, "u").test(input))
				return [`${where} must match ${schema.pattern}`];
			return [];
		case "integer":
		case "number": {
			if (typeof input !== "number" || !Number.isFinite(input)) return [`${where} must be a number`];
			if (schema.type === "integer" && !Number.isInteger(input)) return [`${where} must be a whole number`];
			if (schema.minimum !== undefined && input < schema.minimum)
				return [`${where} must be at least ${schema.minimum}`];
			if (schema.maximum !== undefined && input > schema.maximum) return [`${where} must be at most ${schema.maximum}`];
			return [];
		}
		case "boolean":
			return typeof input === "boolean" ? [] : [`${where} must be true or false`];
	}
}

function validateObject(schema: JsonSchema, input: unknown, where: string): string[] {
	if (input === null || typeof input !== "object" || Array.isArray(input)) return [`${where} must be an object`];
	const record = input as Record<string, unknown>;
	const properties = schema.properties ?? {};
	const problems: string[] = [];
	for (const key of schema.required ?? []) if (record[key] === undefined) problems.push(`'${key}' is required`);
	for (const [key, value] of Object.entries(record)) {
		const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
		if (!property) {
			if (schema.additionalProperties === false) problems.push(`'${key}' is not an input of this tool`);
			continue;
		}
		if (value !== undefined) problems.push(...validateInput(property, value, `'${key}'`));
	}
	return problems;
}
