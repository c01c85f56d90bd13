import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Tests import the package entry; this points it at the sources so they run without a build.
export default defineConfig({
	resolve: {
		alias: {
			"skillset/cli": fileURLToPath(new URL("./src/cli/index.ts", import.meta.url)),
			skillset: fileURLToPath(new URL("./src/index.ts", import.meta.url)),
		},
	},
	test: {
		include: ["test/**/*.test.ts"],
	},
});
