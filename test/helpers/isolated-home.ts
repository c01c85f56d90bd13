import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

// Every test file runs with a home folder of its own, so nothing a test runs (an in-process CLI that falls back to
// the process's home, a spawned CLI or git) reads the developer's settings or writes into their caches.
const home = mkdtempSync(join(tmpdir(), "skillset-home-"));
process.env.HOME = home;
process.env.XDG_CACHE_HOME = join(home, ".cache");
process.env.XDG_CONFIG_HOME = join(home, ".config");
process.env.GIT_CONFIG_NOSYSTEM = "1";
process.env.GIT_AUTHOR_NAME ??= "skillset tests";
process.env.GIT_AUTHOR_EMAIL ??= "tests@example.invalid";
process.env.GIT_COMMITTER_NAME ??= "skillset tests";
process.env.GIT_COMMITTER_EMAIL ??= "tests@example.invalid";

afterAll(() => rmSync(home, { recursive: true, force: true }));
