// Regenerates the README's diagnostic code table from the built package: `npm run docs`.
import { readFileSync, writeFileSync } from "node:fs";
import { SKILL_CODES } from "../dist/index.js";
import { renderCodesTable, replaceCodesTable } from "./codes-table.mjs";

const path = new URL("../README.md", import.meta.url);
writeFileSync(path, replaceCodesTable(readFileSync(path, "utf8"), renderCodesTable(SKILL_CODES)));
