import { existsSync } from "node:fs";
import { chmod, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.ts";
import { skillMd, tempDir, writeTree } from "../helpers/temp.ts";

// Issue 24 §2: `publish --html` writes a browsable, self-contained page beside the index. Driven in a real headless
// Chromium, as an attacker would write a skill: markup in a description and in file names must stay text.

const CHROMIUM = "/usr/bin/chromium";
// In CI a missing browser fails the run (the launch throws); on a developer's machine the browser tests are skipped.
const browserMissing = !existsSync(CHROMIUM) && process.env.CI !== "true";
if (browserMissing) console.warn(`publish-page: ${CHROMIUM} is missing, so the browser tests are skipped`);

const PAYLOAD = `<script>window.pwned = 1</script>"><img src=x onerror="window.pwned = 2"><b>bold</b>`;
const EVIL_FILE = `<img src=x onerror=window.pwned=3>.txt`;

/** Page-side source: decodes a PNG and counts its distinct colours and the share of dark pixels. */
const PIXELS = (base64: string) => `(async () => {
	const image = new Image();
	image.src = "data:image/png;base64,${base64}";
	await image.decode();
	const canvas = document.createElement("canvas");
	canvas.width = image.width;
	canvas.height = image.height;
	const context = canvas.getContext("2d");
	context.drawImage(image, 0, 0);
	const pixels = context.getImageData(0, 0, image.width, image.height).data;
	const seen = new Set();
	let dark = 0;
	for (let i = 0; i < pixels.length; i += 4) {
		seen.add((pixels[i] << 16) | (pixels[i + 1] << 8) | pixels[i + 2]);
		if (pixels[i] < 128) dark++;
	}
	return { colours: seen.size, inked: dark / (pixels.length / 4) };
})()`;

/** A workspace of three skills, one of them hostile; `publish` runs the CLI in it. */
async function workspace() {
	const cwd = await writeTree(await tempDir(), {
		".agents/skills/pdf-tools/SKILL.md": skillMd("pdf-tools", "Extract text and tables from PDF files."),
		".agents/skills/pdf-tools/scripts/extract.sh": "#!/bin/sh\necho pdf\n",
		".agents/skills/weather/SKILL.md": skillMd("weather", "Report the weather for a city."),
		".agents/skills/evil/SKILL.md": skillMd("evil", `'${PAYLOAD}'`),
		[`.agents/skills/evil/${EVIL_FILE}`]: "x\n",
	});
	await chmod(join(cwd, ".agents/skills/pdf-tools/scripts/extract.sh"), 0o755);
	const publish = async (out: string, ...extra: string[]) => {
		const run = await cli(["publish", "--out", out, "--json", ...extra], { cwd, env: { HOME: cwd } });
		return { ...run, data: run.stdout ? JSON.parse(run.stdout) : undefined };
	};
	return { cwd, publish };
}

/** Serves `folder` over loopback HTTP with real content types; returns the base URL. */
async function serve(folder: string): Promise<{ base: string }> {
	const server = createServer(async (req, res) => {
		const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
		const body = await readFile(join(folder, path)).catch(() => undefined);
		if (body === undefined) return void res.writeHead(404).end();
		const type = path.endsWith(".html") ? "text/html; charset=utf-8" : "application/octet-stream";
		res.writeHead(200, { "content-type": type }).end(body);
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	afterAll(() => {
		server.closeAllConnections();
		return new Promise<void>((resolve) => server.close(() => resolve()));
	});
	return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe("issue 24 §2: publish --html writes a page beside the index, never among verified files", () => {
	it("leaves index.json byte for byte as without --html, and add installs from it", async () => {
		const ws = await workspace();
		const plain = join(await tempDir(), "plain");
		const withPage = join(await tempDir(), "site");
		expect((await ws.publish(plain)).exitCode).toBe(0);
		const run = await ws.publish(withPage, "--html");
		expect(run.exitCode).toBe(0);
		const index = ".well-known/agent-skills/index.json";
		expect(await readFile(join(withPage, index))).toEqual(await readFile(join(plain, index)));
		expect(existsSync(join(plain, "index.html"))).toBe(false);
		expect(existsSync(join(withPage, "index.html"))).toBe(true);
		expect(existsSync(join(withPage, ".well-known/agent-skills/index.html"))).toBe(false);
		const { base } = await serve(withPage);
		const target = await writeTree(await tempDir(), {});
		const add = await cli(["add", base, "--skill", "pdf-tools", "--skill", "weather", "--yes"], {
			cwd: target,
			env: { HOME: target },
		});
		expect(add.exitCode).toBe(0);
		expect((await stat(join(target, ".agents/skills/pdf-tools/scripts/extract.sh"))).mode & 0o777).toBe(0o755);
	});

	it("escapes every value as text and loads nothing from elsewhere (strict CSP, no remote URL)", async () => {
		const ws = await workspace();
		const out = join(await tempDir(), "site");
		expect((await ws.publish(out, "--html", "--site-url", "https://skills.example.com/")).exitCode).toBe(0);
		const html = await readFile(join(out, "index.html"), "utf8");
		expect(html).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;;/);
		expect(html).not.toContain("<script>window.pwned");
		expect(html).not.toContain("<img");
		expect(html).toContain("&lt;script&gt;window.pwned = 1&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=");
		expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
		expect(html).toContain('skillset add <span class="site" data-fixed="1">https://skills.example.com/</span>');
		expect((await cli(["publish", "--out", out, "--site-url", "https://x.example"], { cwd: ws.cwd })).exitCode).toBe(2);
	});

	it("refuses a link planted at OUT/index.html before writing anything", async () => {
		const ws = await workspace();
		const out = join(await tempDir(), "site");
		const victim = join(await tempDir(), "victim.html");
		await writeFile(victim, "mine\n");
		await writeTree(out, { "keep.txt": "k\n" });
		await symlink(victim, join(out, "index.html"));
		const run = await ws.publish(out, "--html");
		expect(run.exitCode).toBe(1);
		expect(run.data.failure.code).toBe("publish.unsafe-out");
		expect(await readFile(victim, "utf8")).toBe("mine\n");
		expect(existsSync(join(out, ".well-known"))).toBe(false);
	});
});

describe.skipIf(browserMissing)("issue 24 §2: the page in a real headless Chromium", () => {
	let browser: Browser;
	let base = "";
	let shots = "";
	beforeAll(async () => {
		const ws = await workspace();
		const out = join(await tempDir(), "site");
		expect((await ws.publish(out, "--html")).exitCode).toBe(0);
		({ base } = await serve(out));
		shots = await tempDir();
		browser = await chromium.launch({
			executablePath: CHROMIUM,
			args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
			timeout: 60_000,
		});
	}, 90_000);
	afterAll(async () => {
		await browser?.close();
		await rm(shots, { recursive: true, force: true });
	});

	/** A fresh page (JS on or off) that records every console error and CSP violation. */
	async function open(
		url: string,
		javaScriptEnabled = true,
	): Promise<{ page: Page; problems: string[]; requests: string[] }> {
		const context = await browser.newContext({ javaScriptEnabled, viewport: { width: 1000, height: 800 } });
		const page = await context.newPage();
		const problems: string[] = [];
		const requests: string[] = [];
		page.on("request", (request) => requests.push(request.url()));
		page.on("console", (message) => {
			if (message.type() === "error") problems.push(message.text());
		});
		page.on("pageerror", (error) => problems.push(error.message));
		await page.goto(url, { waitUntil: "load" });
		return { page, problems, requests };
	}

	/** Evaluates page-side source text (the tests are type-checked without the DOM's types). */
	const inPage = <T = unknown>(page: Page, source: string) => page.evaluate(source) as Promise<T>;

	const visible = (page: Page) => page.locator("li.skill:visible").evaluateAll((items) => items.map((li) => li.id));

	it("lists every skill, and typing in the search narrows the visible list", async () => {
		const { page, problems } = await open(`${base}/index.html`);
		expect(await visible(page)).toEqual(["evil", "pdf-tools", "weather"]);
		await page.locator("#_q").fill("weath");
		expect(await visible(page)).toEqual(["weather"]);
		await expect.poll(() => page.locator("#_n").textContent()).toBe("1 of 3 skills");
		await page.locator("#_q").fill("PDF tables");
		expect(await visible(page)).toEqual(["pdf-tools"]);
		await page.locator("#_q").fill("");
		expect(await visible(page)).toHaveLength(3);
		expect(await page.locator("#weather pre").textContent()).toBe(`skillset add ${base}/ --skill weather`);
		expect(problems).toEqual([]);
		await page.context().close();
	});

	it("a permalink targets its skill, and brings it back when a search had hidden it", async () => {
		const { page } = await open(`${base}/index.html#weather`);
		expect(await inPage(page, `document.querySelector(":target")?.id`)).toBe("weather");
		expect(await page.locator("#weather").isVisible()).toBe(true);
		await page.locator("#_q").fill("weather");
		expect(await page.locator("#pdf-tools").isVisible()).toBe(false);
		await inPage(page, `location.hash = "#pdf-tools"`);
		await expect.poll(() => page.locator("#pdf-tools").isVisible()).toBe(true);
		expect(await inPage(page, `document.querySelector(":target")?.id`)).toBe("pdf-tools");
		expect(await visible(page)).toHaveLength(3);
		await page.context().close();
	});

	it("markup in a description or a file name runs nothing and shows as text", async () => {
		const { page, problems, requests } = await open(`${base}/index.html#evil`);
		await page.locator("#_q").fill("script");
		expect(await visible(page)).toEqual(["evil"]);
		expect(await inPage(page, "window.pwned")).toBeUndefined();
		expect(await inPage(page, "document.images.length")).toBe(0);
		expect(await page.locator("#evil .desc").textContent()).toBe(PAYLOAD);
		expect(await page.locator("#evil .files").textContent()).toContain(EVIL_FILE);
		expect(problems).toEqual([]);
		// The page alone was fetched: no script, style, font or image (the payload's `src=x` included) from anywhere;
		// a favicon is the browser's own request, not the page's.
		expect(requests.filter((url) => !url.endsWith("/favicon.ico"))).toEqual([`${base}/index.html`]);
		await page.context().close();
	});

	it("works with JavaScript off: the plain list, every skill shown, the permalink targeted", async () => {
		const { page } = await open(`${base}/index.html#pdf-tools`, false);
		expect(await visible(page)).toEqual(["evil", "pdf-tools", "weather"]);
		expect(await page.locator("#_q").isVisible()).toBe(false);
		expect(await page.locator("#pdf-tools pre").textContent()).toBe("skillset add <this site's URL> --skill pdf-tools");
		const border = await inPage(page, `getComputedStyle(document.getElementById("pdf-tools")).borderTopColor`);
		const other = await inPage(page, `getComputedStyle(document.getElementById("weather")).borderTopColor`);
		expect(border).not.toBe(other);
		await page.context().close();
	});

	it("renders something to see: a screenshot that is not blank", async () => {
		const { page } = await open(`${base}/index.html`);
		const file = join(shots, "page.png");
		const png = await page.screenshot({ path: file, fullPage: true });
		expect((await stat(file)).size).toBe(png.length);
		// Decoded in the browser itself: a blank page is one colour; this one has text, borders and backgrounds.
		const blank = await browser.newPage();
		const { colours, inked } = await inPage<{ colours: number; inked: number }>(blank, PIXELS(png.toString("base64")));
		expect(colours).toBeGreaterThan(20);
		expect(inked).toBeGreaterThan(0.005);
		await blank.close();
		await page.context().close();
	});
});
