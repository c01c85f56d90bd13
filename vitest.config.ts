import { defineConfig, type ViteUserConfig } from "vitest/config";

// Tests import the package by name; the `skillset-source` export condition points it at src/, so they run
// against the sources without a build (tsconfig.json sets the same condition for type checking).
const config: ViteUserConfig = defineConfig({
	resolve: { conditions: ["skillset-source"] },
	ssr: { resolve: { conditions: ["skillset-source"] } },
	test: {
		include: ["test/**/*.test.ts"],
	},
});

export default config;
