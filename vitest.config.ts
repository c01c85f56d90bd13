import { defineConfig, type ViteUserConfig } from "vitest/config";

// Tests import the package by name; the `skillset-source` export condition points it at src/, so they run
// against the sources without a build (tsconfig.json sets the same condition for type checking).
const config: ViteUserConfig = defineConfig({
	resolve: { conditions: ["skillset-source"] },
	ssr: { resolve: { conditions: ["skillset-source"] } },
	test: {
		include: ["test/**/*.test.ts"],
		setupFiles: ["test/helpers/isolated-home.ts"],
		// Most test files spawn processes and wait on them: three at once keep two cores busy.
		maxWorkers: 3,
		// Bounded, but generous enough for a spawned CLI on a loaded two-core machine.
		testTimeout: 30_000,
		hookTimeout: 30_000,
	},
});

export default config;
