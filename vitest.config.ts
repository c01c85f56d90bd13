import { fileURLToPath } from "node:url";
import { defineConfig, type ViteUserConfig } from "vitest/config";

// Tests import the package entry; these aliases point it at the sources so tests run without a build.
const config: ViteUserConfig = defineConfig({
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

export default config;
