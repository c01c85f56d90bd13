import { extname } from "node:path";

const TYPES: Readonly<Record<string, string>> = {
	".md": "text/markdown",
	".markdown": "text/markdown",
	".txt": "text/plain",
	".py": "text/x-python",
	".sh": "application/x-sh",
	".bash": "application/x-sh",
	".js": "text/javascript",
	".mjs": "text/javascript",
	".cjs": "text/javascript",
	".ts": "text/typescript",
	".json": "application/json",
	".yaml": "application/yaml",
	".yml": "application/yaml",
	".toml": "application/toml",
	".xml": "application/xml",
	".xsd": "application/xml",
	".html": "text/html",
	".css": "text/css",
	".csv": "text/csv",
	".png": "image/png",
	".jpg": "image/jpeg",
	".jpeg": "image/jpeg",
	".gif": "image/gif",
	".webp": "image/webp",
	".svg": "image/svg+xml",
	".pdf": "application/pdf",
	".zip": "application/zip",
	".ttf": "font/ttf",
	".otf": "font/otf",
	".woff": "font/woff",
	".woff2": "font/woff2",
};

/** The media (MIME) type of a skill file by its extension; `application/octet-stream` when unknown. */
export function mediaTypeOf(path: string): string {
	return TYPES[extname(path).toLowerCase()] ?? "application/octet-stream";
}
