// The documented installers of well-known tools. Their `curl … | sh` one-liners appear in the tools' own manuals, so
// a skill that shows one is asking for something users do every day: that needs the user's approval (P1), not a
// refusal. The same command with any other host, or another path on a shared host, stays P0. Each row is reviewed:
// the host belongs to the tool's maintainers, serves only that installer, and is the one their install page names.

/** One reviewed installer: where it is served from and why that place is trusted as much as the tool itself. */
export interface VendorInstaller {
	/** The exact host (lower case). */
	host: string;
	/** The path the URL must start with, when the host also serves other things (a shared host such as GitHub's). */
	path?: string;
	tool: string;
	reason: string;
}

/** The reviewed table; keep it short, and give every row its reason. */
export const VENDOR_INSTALLERS: readonly VendorInstaller[] = [
	{ host: "bun.sh", path: "/install", tool: "Bun", reason: "bun.sh is Bun's own site; bun.sh/docs/installation" },
	{
		host: "raw.githubusercontent.com",
		path: "/Homebrew/install/",
		tool: "Homebrew",
		reason: "the Homebrew organisation's install repository, the one-liner on brew.sh",
	},
	{ host: "sh.rustup.rs", tool: "rustup", reason: "the Rust project's installer host, named on rustup.rs" },
	{ host: "deno.land", path: "/install", tool: "Deno", reason: "deno.land is Deno's own site; docs.deno.com install" },
	{
		host: "raw.githubusercontent.com",
		path: "/nvm-sh/nvm/",
		tool: "nvm",
		reason: "the nvm-sh organisation's repository, the install line of its README",
	},
	{ host: "astral.sh", path: "/uv/", tool: "uv", reason: "astral.sh is Astral's site; docs.astral.sh/uv install" },
	{
		host: "astral.sh",
		path: "/ruff/",
		tool: "ruff",
		reason: "astral.sh is Astral's site; docs.astral.sh/ruff install",
	},
	{ host: "get.docker.com", tool: "Docker", reason: "Docker's convenience script, docs.docker.com/engine/install" },
	{
		host: "install.python-poetry.org",
		tool: "Poetry",
		reason: "the Poetry project's installer host, python-poetry.org/docs",
	},
	{ host: "get.pnpm.io", path: "/install.sh", tool: "pnpm", reason: "pnpm's installer host, pnpm.io/installation" },
	{ host: "claude.ai", path: "/install.sh", tool: "Claude Code", reason: "Anthropic's native Claude Code installer" },
	{
		host: "ollama.com",
		path: "/install.sh",
		tool: "Ollama",
		reason: "ollama.com is Ollama's own site; its Linux install",
	},
	{ host: "get.volta.sh", tool: "Volta", reason: "Volta's installer host, docs.volta.sh" },
	{ host: "pyenv.run", tool: "pyenv", reason: "the pyenv-installer host named in pyenv's README" },
	{ host: "mise.run", tool: "mise", reason: "mise's installer host, mise.jdx.dev/installing-mise" },
	{ host: "get.sdkman.io", tool: "SDKMAN!", reason: "SDKMAN!'s installer host, sdkman.io/install" },
	{ host: "install.determinate.systems", path: "/nix", tool: "Nix", reason: "the Determinate Nix installer" },
	{
		host: "deb.nodesource.com",
		path: "/setup_",
		tool: "Node.js (NodeSource)",
		reason: "NodeSource's package host; the setup line of github.com/nodesource/distributions",
	},
	{
		host: "rpm.nodesource.com",
		path: "/setup_",
		tool: "Node.js (NodeSource)",
		reason: "NodeSource's package host; the setup line of github.com/nodesource/distributions",
	},
	{
		host: "fluxcd.io",
		path: "/install.sh",
		tool: "Flux",
		reason: "the Flux project's site; fluxcd.io/flux/installation",
	},
	{
		host: "community.chocolatey.org",
		path: "/install.ps1",
		tool: "Chocolatey",
		reason: "Chocolatey's own site; the one-liner of chocolatey.org/install",
	},
	{
		host: "run.linkerd.io",
		path: "/install",
		tool: "Linkerd",
		reason: "Linkerd's installer host, linkerd.io getting started",
	},
];

/**
 * The reviewed installer a URL is, or undefined: exact host, `https` only, and the row's path prefix. The host must
 * end the authority: in `https://sh.rustup.rs@evil.io` it is only a user name, and curl fetches from `evil.io`.
 */
export function vendorInstaller(url: string): VendorInstaller | undefined {
	const match = /^https:\/\/([^/?#:@]+)(?=$|[/?#])(\/[^?#]*)?/i.exec(url.trim());
	if (!match) return undefined;
	const host = (match[1] ?? "").toLowerCase();
	const path = match[2] ?? "/";
	return VENDOR_INSTALLERS.find((row) => row.host === host && (row.path === undefined || path.startsWith(row.path)));
}

// The PowerShell and shell words that fetch: a text with more of them than URLs fetches something named without a
// scheme (`irm get.example/x.ps1`), which no reviewed row can vouch for.
const FETCH_WORDS =
	/\b(irm|iwr|invoke-webrequest|invoke-restmethod|downloadstring|downloadfile|downloaddata|start-bitstransfer|curl|wget)\b/gi;

// An address no row can vouch for, since only `https://` ones can be reviewed: another scheme, `//host`, or a host
// written without a scheme (`x.io/p`, `x.io:8080`, `203.0.113.9`), which curl and wget fetch all the same.
const OTHER_ADDRESS =
	/(?:^|[\s"'`=(])(?:(?!https?:)[a-z][a-z0-9+.-]*:\/\/|\/\/[a-z0-9]|(?:[a-z0-9-]+\.)+[a-z][a-z0-9-]*(?::\d{1,5})?\/|(?:[a-z0-9-]+\.)+[a-z][a-z0-9-]*:\d{1,5}\b|(?:\d{1,3}\.){3}\d{1,3}\b)/i;

// The options of curl and wget that take the next word as their value (short ones as letters, which may end a
// cluster such as `-sSo`). Any other word that is not an option is fetched. Options that read more addresses from a
// file (`curl -K`, `wget -i`) are left out on purpose: their value then counts as fetched, and the line is refused.
const VALUE_OPTIONS: Readonly<Record<string, { letters: string; long: ReadonlySet<string> }>> = {
	curl: {
		letters: "oHAXduebcmwxrzTFYyECDU",
		long: new Set(
			"output header user-agent request data data-raw data-binary data-ascii data-urlencode json user referer cookie cookie-jar max-time connect-timeout retry retry-delay retry-max-time write-out proxy proto proto-redir proto-default cacert capath cert key range time-cond limit-rate resolve upload-file form output-dir tls-max ciphers interface dns-servers max-filesize max-redirs oauth2-bearer speed-limit speed-time continue-at dump-header proxy-user".split(
				" ",
			),
		),
	},
	wget: {
		letters: "OoaUPtTwQle",
		long: new Set(
			"output-document output-file append-output user-agent header directory-prefix tries timeout wait quota level execute post-data post-file body-data method user password http-user http-password referer load-cookies save-cookies ca-certificate certificate private-key".split(
				" ",
			),
		),
	},
};

/**
 * Whether every word `program` (curl or wget) would fetch is a reviewed installer URL: each word that is neither an
 * option nor an option's value must be one. True for any other program (its words are judged by the caller).
 */
export function fetchesOnlyReviewed(program: string, args: readonly string[]): boolean {
	const options = VALUE_OPTIONS[program];
	if (!options) return true;
	for (let i = 0; i < args.length; i++) {
		const word = args[i] ?? "";
		if (word === "--") return args.slice(i + 1).every((rest) => vendorInstaller(unquoted(rest)) !== undefined);
		if (word.startsWith("--")) {
			if (!word.includes("=") && options.long.has(word.slice(2))) i++;
		} else if (word.startsWith("-") && word.length > 1) {
			// A value-taking letter takes the rest of its cluster as its value, or the next word when nothing follows.
			for (let j = 1; j < word.length; j++)
				if (options.letters.includes(word[j] as string)) {
					if (j === word.length - 1) i++;
					break;
				}
		} else if (vendorInstaller(unquoted(word)) === undefined) return false;
	}
	return true;
}

const unquoted = (word: string): string => word.replace(/^(["'])(.*)\1$/s, "$2");

/**
 * P1 when every URL in `texts` is a reviewed installer (and there is one) and nothing else there is fetched;
 * otherwise undefined, the rule's own P0.
 */
export function installerSeverity(texts: readonly string[]): "P1" | undefined {
	const urls = texts.flatMap((a) => a.match(/https?:\/\/[^\s"'`)|;&]+/g) ?? []);
	if (urls.length === 0 || !urls.every((url) => vendorInstaller(url) !== undefined)) return undefined;
	if (texts.some((a) => OTHER_ADDRESS.test(a))) return undefined;
	const fetches = texts.reduce((n, a) => n + (a.match(FETCH_WORDS)?.length ?? 0), 0);
	return fetches <= urls.length ? "P1" : undefined;
}
