import { matchesDenyRule } from "skillset";
import { describe, expect, it } from "vitest";

// Issue 18: `--deny 'run_shell(git push:*)'` matched one spelling only; with --yes, `git -C repo push`,
// `/usr/bin/git push`, `"git" push` and a doubled space all pushed. A deny rule matches the program and subcommand
// the shell would run, however the line spells them, and a line whose programs cannot be known is denied.

const PUSH = "run_shell(git push:*)";
const denied = (command: string, pattern = PUSH) => matchesDenyRule(pattern, { tool: "run_shell", command });

describe("matchesDenyRule: every spelling of a denied command", () => {
	it.each([
		"git push",
		"git push origin main --force",
		"git -C repo push",
		"git -C repo -c user.name=x push",
		"/usr/bin/git push",
		"/bin/git push",
		"./git push",
		'"git" push',
		"'git' 'push'",
		"git  push",
		"git\tpush",
		"g\\it push",
		"git pu\\sh",
		"git --git-dir=x push",
		"git --git-dir x --work-tree y push",
		"git -c a=b push",
		"git --no-pager push",
		"GIT_DIR=x git push",
		"env git push",
		"env -i PATH=/usr/bin git push",
		"env -u HOME git push",
		"command git push",
		"command -p git push",
		"builtin command git push",
		"exec git push",
		"nohup git push &",
		"timeout 10 git push",
		"nice -n 5 git push",
		"time git push",
		"sudo -u root git push",
		"xargs git push < list",
		"echo push | xargs git",
		"find . -maxdepth 0 -exec git push \\;",
		"find . -exec git {} \\;",
		"sh -c 'git push'",
		'bash -lc "git push"',
		"bash -e -c 'cd repo && git push'",
		"sh -c 'sh -c \"git push\"'",
		"eval git push",
		'eval "git push"',
		"trap 'git push' EXIT",
		"true && git push",
		"false || git push",
		"ls; git push",
		"ls | git push",
		"ls\ngit push",
		"(git push)",
		"(cd repo && git push)",
		"{ git push; }",
		"if true; then git push; fi",
		"while true; do git push; break; done",
		"! git push",
		"f() { git push; }; f",
		"echo $(git push)",
		"echo `git push`",
		'echo "$(git push)"',
		"ls > $(git push)",
		"GIT=git; $GIT push",
		"$(echo git) push",
		"`echo git` push",
		"g*t push",
		"git $SUB",
		"git -c alias.p=push p",
		// biome-ignore lint/suspicious/noTemplateCurlyInString: the shell text itself
		"git p${X}",
	])("%j is denied", (command) => {
		expect(denied(command)).toBe(true);
	});

	it.each([
		// Programs the analysis cannot see into: code from a string, a file or stdin.
		"sh script.sh",
		"bash",
		"sh < cmds.txt",
		"echo 'git push' | sh",
		"bash <<EOF\ngit push\nEOF",
		". ./script.sh",
		"source script.sh",
		"python3 -c 'import os; os.system(\"git push\")'",
		'node -e \'require("child_process").execSync("git push")\'',
		"perl -e 'system(\"git push\")'",
		'eval "$CMD"',
		"env $CMD",
		"xargs $CMD < list",
		"cat <(git push)",
		"alias p='git push'",
		'sh -c "$X"',
		"echo 'unterminated",
	])("%j cannot be accounted for: denied while a deny rule exists", (command) => {
		expect(denied(command)).toBe(true);
	});

	it.each([
		"git status",
		"git log --grep push",
		"git log --oneline push",
		"git help push",
		"git commit -m 'git push later'",
		"echo git push",
		"grep -r 'git push' .",
		"printf '%s\\n' push",
		"ls -la",
		"npm test",
		"python3 tools/check.py",
		"gitk push",
		"git pushx",
		"cat README.md | grep push",
	])("%j is not denied", (command) => {
		expect(denied(command)).toBe(false);
	});

	it("an exact rule denies the exact command in any spelling, but not with more words", () => {
		expect(denied("git -C repo push", "run_shell(git push)")).toBe(true);
		expect(denied("'git' push", "run_shell(git push)")).toBe(true);
		expect(denied("git push --force", "run_shell(git push)")).toBe(false);
	});

	it("a rule for a program covers it by any path and through wrappers; a bare tool covers everything", () => {
		expect(denied("/usr/bin/curl -s https://x", "run_shell(curl:*)")).toBe(true);
		expect(denied("env curl https://x", "run_shell(curl:*)")).toBe(true);
		expect(denied("echo curl", "run_shell(curl:*)")).toBe(false);
		expect(denied("ls", "run_shell")).toBe(true);
		expect(denied("ls", "read_file")).toBe(false);
	});

	it("matches path rules as before", () => {
		expect(matchesDenyRule("write_file(secrets/**)", { tool: "write_file", paths: ["secrets/a.txt"] })).toBe(true);
		expect(matchesDenyRule("write_file(secrets/**)", { tool: "write_file", paths: ["src/a.txt"] })).toBe(false);
	});
});

describe("escaped globs", () => {
	it("a backslash makes a glob character literal", async () => {
		const { escapeGlob, globToRegExp } = await import("../../src/policy/index.ts");
		expect(escapeGlob("a/**/[x]{y}?.md")).toBe("a/\\*\\*/\\[x\\]\\{y\\}\\?.md");
		expect(globToRegExp(escapeGlob("**")).test("src/app.ts")).toBe(false);
		expect(globToRegExp(escapeGlob("**")).test("**")).toBe(true);
		expect(globToRegExp("src/**").test("src/app.ts")).toBe(true);
	});
});

describe("matchesDenyRule on hostile sizes", () => {
	it("a line of thousands of nested wrappers ends quickly and is denied", () => {
		expect(denied(`${"env ".repeat(5_000)}git push`)).toBe(true);
		expect(denied(`${"timeout 1 ".repeat(3_000)}ls`)).toBe(true);
	});

	it("a long ordinary line is still matched word by word", () => {
		expect(denied(`echo ${"word ".repeat(20_000)}`)).toBe(false);
		expect(denied(`ls ${"-l ".repeat(20_000)}; git push`)).toBe(true);
	});
});
