import { type JsonSchema, validateInput } from "./schema.ts";
import type { ToolResult } from "./tool.ts";

/** Validates input against the schema first; invalid input is an error result that says what to fix. */
export function guarded(
	schema: JsonSchema,
	run: (input: Record<string, unknown>) => Promise<ToolResult>,
): (input: unknown) => Promise<ToolResult> {
	return async (input) => {
		const problems = validateInput(schema, input ?? {});
		if (problems.length > 0)
			return {
				content: `Invalid input: ${problems.join("; ")}`,
				isError: true,
				protected: false,
				details: { problems },
			};
		return run((input ?? {}) as Record<string, unknown>);
	};
}
