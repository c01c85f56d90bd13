import type { Profile } from "./codes.ts";
import { codePointsOver, type Finding } from "./diagnostics.ts";
import { coerceField, type FieldType, SPEC_FIELDS, splitToolList } from "./fields.ts";
import type { FrontmatterField } from "./parsed-yaml.ts";
import { parsePermissions } from "./permissions.ts";
import type { SkillProperties } from "./properties.ts";

/** Spec §compatibility: at most 500 characters. */
export const MAX_COMPATIBILITY_CODE_POINTS = 500;

/** Reads `license`, `compatibility`, `metadata` and `allowed-tools`, reporting where they stray from the spec. */
export function readOptionalSpecFields(
	fields: ReadonlyMap<string, FrontmatterField>,
	properties: SkillProperties,
	out: Finding[],
): void {
	const compatibility = readCompatibility(fields.get("compatibility"), out);
	if (compatibility !== undefined) properties.compatibility = compatibility;
	const license = fields.get("license");
	if (license?.text !== undefined) properties.license = license.text.trim();
	else if (license) {
		out.push({ code: "license.not-string", message: "Field 'license' should be a string", at: license.valueOffset });
	}
	const metadata = fields.get("metadata");
	if (metadata) properties.metadata = readMetadata(metadata, out);
	const tools = fields.get("allowed-tools");
	if (tools) {
		const allowed = readAllowedTools(tools, out);
		if (allowed) properties.allowedTools = allowed;
	}
}

function readCompatibility(field: FrontmatterField | undefined, out: Finding[]): string | undefined {
	if (!field) return undefined;
	const base = { at: field.valueOffset, field: "compatibility" };
	if (field.text === undefined) {
		out.push({ code: "compatibility.not-string", message: "Field 'compatibility' must be a string", ...base });
		return undefined;
	}
	const length = codePointsOver(field.text, MAX_COMPATIBILITY_CODE_POINTS);
	if (field.text.trim() === "") {
		out.push({ code: "compatibility.empty", message: "Field 'compatibility' is empty", ...base });
	} else if (length !== undefined) {
		const message = `Compatibility exceeds ${MAX_COMPATIBILITY_CODE_POINTS} character limit (${length} chars)`;
		out.push({ code: "compatibility.too-long", message, ...base });
	}
	return field.text.trim();
}

/** Metadata as string→string: scalars keep their source text; nested values are reported and kept as JSON. */
function readMetadata(field: FrontmatterField, out: Finding[]): Record<string, string> {
	const metadata: Record<string, string> = Object.create(null);
	if (!field.children) {
		out.push({
			code: "metadata.not-string-map",
			message: "Field 'metadata' should be a mapping",
			at: field.valueOffset,
		});
		return metadata;
	}
	for (const child of field.children.values()) {
		if (child.text !== undefined) {
			metadata[child.key] = child.text;
			continue;
		}
		metadata[child.key] = JSON.stringify(child.value);
		out.push({
			code: "metadata.not-string-map",
			message: `metadata.${child.key} should be a string, not a ${child.kind}`,
			at: child.valueOffset,
			field: "metadata",
		});
	}
	return metadata;
}

function readAllowedTools(field: FrontmatterField, out: Finding[]): string[] | undefined {
	if (field.text !== undefined) return splitToolList(field.text);
	const items = field.items;
	if (items?.every((item) => item.text !== undefined)) {
		out.push({ code: "allowed-tools.list", message: "allowed-tools is a list", at: field.valueOffset });
		return items.flatMap((item) => splitToolList(item.text ?? ""));
	}
	out.push({
		code: "allowed-tools.invalid",
		message: "allowed-tools must be a space-separated string",
		at: field.valueOffset,
		field: "allowed-tools",
	});
	return undefined;
}

// Extension fields that SkillProperties models directly, by frontmatter key.
const MODELLED: Readonly<Record<string, keyof SkillProperties>> = {
	when_to_use: "whenToUse",
	"argument-hint": "argumentHint",
	"disable-model-invocation": "disableModelInvocation",
	"user-invocable": "userInvocable",
	model: "model",
	title: "title",
	read_when: "readWhen",
	agent_created: "agentCreated",
	depends_on: "dependsOn",
	permissions: "permissions",
};

/** Reads the extension fields a profile knows, type-checked; other fields go to `extra` as written. */
export function readExtensionFields(
	fields: ReadonlyMap<string, FrontmatterField>,
	known: ReadonlyMap<string, FieldType | null>,
	profile: Profile,
	properties: SkillProperties,
	out: Finding[],
): void {
	for (const field of fields.values()) {
		if (SPEC_FIELDS.includes(field.key)) continue;
		const type = known.get(field.key);
		if (field.key === "permissions" && type) {
			// Parsed whatever its shape: a broken declaration becomes the empty manifest, never no manifest.
			const parsed = parsePermissions(field);
			out.push(...parsed.findings);
			properties.manifest = parsed.manifest;
			if (field.children) properties.permissions = field.value as SkillProperties["permissions"];
			continue;
		}
		if (!type) {
			properties.extra[field.key] = field.value;
			continue;
		}
		const value = coerceField(field.value, type, profile === "lenient");
		if (value === undefined) {
			const message = `Field '${field.key}' must be ${TYPE_NAMES[type]}`;
			out.push({ code: "field.type", message, at: field.valueOffset, field: field.key });
			continue;
		}
		const property = MODELLED[field.key];
		if (property) Object.assign(properties, { [property]: typeof value === "string" ? value.trim() : value });
		else properties.extra[field.key] = field.value;
	}
}

const TYPE_NAMES: Readonly<Record<FieldType, string>> = {
	string: "a string",
	boolean: "true or false",
	"string-list": "a string or a list of strings",
	mapping: "a mapping",
};
