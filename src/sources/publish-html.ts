import { createHash } from "node:crypto";
import { INDEX_PATH } from "./well-known.ts";

/** One skill as the browsable page shows it. */
export interface PageSkill {
	name: string;
	description: string;
	/** The artifact's URL relative to the index folder, its digest and its size in bytes. */
	url: string;
	digest: string;
	size: number;
	files: readonly { path: string; size: number }[];
}

// Fixed text: the page's Content-Security-Policy allows exactly these two blocks by their hashes, and nothing else
// (no other script, style, image, font, frame or connection), so text from a skill can never run or load anything.
const STYLE = `
body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:60rem;padding:1rem 1.5rem;color:#1d1d1f;background:#fff}
h1{margin:.2rem 0}
#_q{font:inherit;width:100%;box-sizing:border-box;padding:.5rem .7rem;margin:.6rem 0;border:1px solid #999;border-radius:6px}
ol{list-style:none;padding:0}
li.skill{border:1px solid #d0d0d7;border-radius:8px;padding:.6rem 1rem;margin:.8rem 0;background:#fafafc}
li.skill:target{border-color:#0a58ca;box-shadow:0 0 0 3px #9ec5fe;background:#eef5ff}
h2{font-size:1.15rem;margin:.1rem 0}
h2 a{color:#0a58ca;text-decoration:none}
.desc{white-space:pre-wrap;overflow-wrap:anywhere;margin:.3rem 0}
code,pre{font:13px/1.4 ui-monospace,monospace;overflow-wrap:anywhere;white-space:pre-wrap}
pre{background:#f0f0f4;padding:.4rem .6rem;border-radius:4px;margin:.3rem 0}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.1rem .8rem;margin:.3rem 0}
dt{color:#555}
dd{margin:0;overflow-wrap:anywhere}
.files li{font:13px ui-monospace,monospace}
`;

const SCRIPT = `
(function () {
	var input = document.getElementById("_q");
	var count = document.getElementById("_n");
	var items = Array.prototype.slice.call(document.querySelectorAll("li.skill"));
	var base = location.href.replace(/[#?].*$/, "").replace(/index\\.html$/, "");
	if (/^https?:/.test(base)) {
		document.querySelectorAll(".site").forEach(function (el) { if (!el.dataset.fixed) el.textContent = base; });
	}
	function filter() {
		var words = input.value.toLowerCase().split(/\\s+/).filter(Boolean);
		var shown = 0;
		items.forEach(function (li) {
			var text = li.dataset.search;
			var hit = words.every(function (w) { return text.indexOf(w) >= 0; });
			li.hidden = !hit;
			if (hit) shown++;
		});
		count.textContent = shown + " of " + items.length + " skills";
	}
	function reveal() {
		var id = location.hash.slice(1);
		try { id = decodeURIComponent(id); } catch (e) { /* a malformed escape: look the id up as written */ }
		var target = id && document.getElementById(id);
		if (target && target.hidden) { input.value = ""; filter(); }
		if (target) target.scrollIntoView();
	}
	input.hidden = false;
	input.addEventListener("input", filter);
	window.addEventListener("hashchange", reveal);
	filter();
	reveal();
})();
`;

/** The page's Content-Security-Policy: nothing but the page's own style and script, by their hashes. */
export const PAGE_CSP: string = [
	"default-src 'none'",
	`style-src '${cspHash(STYLE)}'`,
	`script-src '${cspHash(SCRIPT)}'`,
	"base-uri 'none'",
	"form-action 'none'",
].join("; ");

/**
 * A self-contained HTML page listing the skills of an index (name, description, files, size, digest, install
 * command), one `#name` permalink each, readable with scripts off; a search box filters the list when scripts run.
 * Every value from a skill is escaped as text. `siteUrl` is where OUT is served (the install command's URL); without
 * it, the page fills in its own address when a script may run.
 */
export function renderIndexPage(skills: readonly PageSkill[], siteUrl?: string): string {
	const site = siteUrl
		? `<span class="site" data-fixed="1">${text(siteUrl)}</span>`
		: `<span class="site">&lt;this site's URL&gt;</span>`;
	const folder = INDEX_PATH.slice(0, INDEX_PATH.lastIndexOf("/"));
	const items = skills.map((skill) => item(skill, site, folder)).join("\n");
	return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${text(PAGE_CSP)}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Agent skills</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>Agent skills</h1>
<p>${skills.length} skill${skills.length === 1 ? "" : "s"} in <a href="${text(INDEX_PATH)}">the discovery index</a>. Install one with <code>skillset add URL --skill NAME</code>; every artifact is checked against its digest.</p>
<input id="_q" type="search" placeholder="Search skills" aria-label="Search skills" autocomplete="off" hidden>
<p id="_n" aria-live="polite"></p>
</header>
<main>
<ol id="_skills">
${items}
</ol>
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

function item(skill: PageSkill, site: string, folder: string): string {
	const name = text(skill.name);
	const search = text(`${skill.name} ${skill.description}`.toLowerCase());
	const files = skill.files.map((file) => `<li>${text(file.path)} <small>(${bytes(file.size)})</small></li>`);
	return `<li class="skill" id="${name}" data-search="${search}">
<h2><a href="#${name}">${name}</a></h2>
<p class="desc">${text(skill.description)}</p>
<pre><code>skillset add ${site} --skill ${name}</code></pre>
<dl>
<dt>Artifact</dt><dd><a href="${text(`${folder}/${skill.url}`)}">${text(skill.url)}</a> (${bytes(skill.size)})</dd>
<dt>Digest</dt><dd><code>${text(skill.digest)}</code></dd>
</dl>
<details class="files"><summary>${skill.files.length} file${skill.files.length === 1 ? "" : "s"}</summary><ul>
${files.join("\n")}
</ul></details>
</li>`;
}

/** Text as HTML text or a quoted attribute value; control characters other than tab and newline become U+FFFD. */
function text(value: string): string {
	return (
		value
			// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
			.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "\ufffd")
			.replace(/&/g, "&amp;")
			.replace(/</g, "&lt;")
			.replace(/>/g, "&gt;")
			.replace(/"/g, "&quot;")
			.replace(/'/g, "&#39;")
	);
}

function bytes(size: number): string {
	if (size < 1024) return `${size} B`;
	if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KiB`;
	return `${(size / (1024 * 1024)).toFixed(1)} MiB`;
}

function cspHash(source: string): string {
	return `sha256-${createHash("sha256").update(source, "utf8").digest("base64")}`;
}
