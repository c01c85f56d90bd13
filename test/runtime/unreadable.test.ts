// Issue 8 §1: an unreadable subfolder, or a folder swapped for a file, is a result with a code: never a throw from
// activate, load_skill or the listing.
import { rmSync, writeFileSync } from "node:fs";
import { chmod } from "node:fs/promises";
import { join } from "node:path";
import {
	createLock,
	createSession,
	createSkillTools,
	estimateTokenizer,
	hashPackage,
	listResources,
	NODE_CONTAIN_OPERATIONS,
} from "skillset";
import { describe, expect, it } from "vitest";
import { indexOf, skillMd } from "../helpers/temp.ts";

const NOBODY = 65534;

/** Runs `work` with the effective uid of `nobody` when we are root, so permission bits really apply. */
async function asUnprivileged<T>(work: () => Promise<T>): Promise<T> {
	const root = process.geteuid?.() === 0;
	if (root) process.seteuid?.(NOBODY);
	try {
		return await work();
	} finally {
		if (root) process.seteuid?.(0);
	}
}

describe("activate with a folder it cannot read", () => {
	it("activates, lists what it can, and reports the folder as unreadable (real EACCES)", async () => {
		const { index, root } = await indexOf({
			"locked/SKILL.md": skillMd("locked"),
			"locked/references/secret-plan.md": "# Plan\n",
			"locked/scripts/run.sh": "echo hi\n",
		});
		// The test folder itself is 0700 (mkdtemp); let the unprivileged user in, and lock only references/.
		await chmod(root, 0o755);
		const references = join(root, "locked", "references");
		await chmod(references, 0o000);
		try {
			const session = createSession(index, { tokenizer: estimateTokenizer });
			const activation = await asUnprivileged(() => session.activate("locked"));
			const load = createSkillTools(createSession(index, { tokenizer: estimateTokenizer }))[0];
			const tool = await asUnprivileged(async () => load?.execute({ name: "locked" }));
			expect(activation).toMatchObject({
				ok: true,
				resources: {
					scripts: ["scripts/run.sh"],
					references: [],
					unreadable: [{ path: "references", code: "resource.unreadable" }],
				},
			});
			expect(tool).toMatchObject({
				isError: false,
				details: { resources: { unreadable: [{ path: "references", code: "resource.unreadable" }] } },
			});
		} finally {
			await chmod(references, 0o755);
		}
	});
});

describe("hashPackage and verify mode with a folder it cannot read", () => {
	it("records the folder as a problem and refuses the activation with integrity.mismatch", async () => {
		const { index, root } = await indexOf({
			"pinned/SKILL.md": skillMd("pinned"),
			"pinned/references/guide.md": "# Guide\n",
		});
		await chmod(root, 0o755);
		const integrity = { lock: createLock(index.selected, root).lock, root };
		const references = join(root, "pinned", "references");
		await chmod(references, 0o000);
		try {
			const hashed = await asUnprivileged(async () => hashPackage(join(root, "pinned")));
			expect(hashed.problems).toEqual([expect.stringMatching(/^references: .*\(resource\.unreadable\)$/)]);
			const session = createSession(index, { tokenizer: estimateTokenizer, integrity });
			expect(await asUnprivileged(() => session.activate("pinned"))).toMatchObject({
				ok: false,
				code: "integrity.mismatch",
			});
		} finally {
			await chmod(references, 0o755);
		}
	});
});

describe("listResources", () => {
	it("reports a folder swapped for a file while it is listed, and lists the rest", async () => {
		const { root } = await indexOf({
			"swap/SKILL.md": skillMd("swap"),
			"swap/assets/logo.txt": "logo\n",
			"swap/references/guide.md": "# Guide\n",
		});
		const dir = join(root, "swap");
		const folder = join(dir, "references");
		const resources = listResources(dir, {
			operations: {
				...NODE_CONTAIN_OPERATIONS,
				open: (path, flags) => {
					if (path.endsWith("/references")) {
						// Done synchronously inside the open: the folder becomes a file between the listing and the open.
						rmSync(folder, { recursive: true });
						writeFileSync(folder, "now a file\n");
					}
					return NODE_CONTAIN_OPERATIONS.open(path, flags);
				},
			},
		});
		expect(resources.assets).toEqual(["assets/logo.txt"]);
		expect(resources.references).toEqual([]);
		expect(resources.unreadable).toEqual([{ path: "references", code: "resource.not-found" }]);
	});
});
