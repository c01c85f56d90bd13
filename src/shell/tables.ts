// The programs the shell analysis knows, and what each kind of program does to files and the network.

// Commands that run another command (or a command line) that this analysis cannot see.
export const WRAPPERS: ReadonlySet<string> = new Set(
	(
		"env sudo doas su runuser sg nohup timeout nice ionice xargs exec command builtin time eval source . watch " +
		"parallel stdbuf chroot setsid flock script strace ltrace unbuffer busybox fakeroot firejail nsenter unshare " +
		"chronic trap alias function coproc"
	).split(" "),
);

// Interpreters and the short options that run inline code (or edit in place); no operand means a script on stdin.
export const INTERPRETERS: ReadonlyArray<[RegExp, string, readonly string[]]> = [
	[/^(?:sh|bash|zsh|dash|ksh|mksh|fish|csh|tcsh)$/, "cs", ["--command"]],
	[/^python[0-9.]*$|^pypy[0-9.]*$/, "c", []],
	[/^(?:node|nodejs|bun)$/, "ep", ["--eval", "--print"]],
	[/^deno$/, "", ["eval"]],
	[/^perl[0-9.]*$/, "eEi", []],
	[/^ruby[0-9.]*$/, "ei", []],
	[/^php[0-9.]*$/, "r", []],
	[/^lua[0-9.]*$|^luajit$|^tclsh$|^Rscript$/, "e", []],
	[/^(?:pwsh|powershell)$/, "c", ["-command", "-encodedcommand"]],
];

// Programs whose whole job hides their writes.
export const OPAQUE: Readonly<Record<string, string>> = {
	awk: "an awk program can write files and run commands",
	gawk: "an awk program can write files and run commands",
	mawk: "an awk program can write files and run commands",
	nawk: "an awk program can write files and run commands",
	dd: "dd writes where its operands say",
	patch: "patch writes the files named in the patch",
	tar: "an archive tool writes the paths inside the archive",
	unzip: "an archive tool writes the paths inside the archive",
	bsdtar: "an archive tool writes the paths inside the archive",
	cpio: "an archive tool writes the paths inside the archive",
	"7z": "an archive tool writes the paths inside the archive",
	"7za": "an archive tool writes the paths inside the archive",
	unrar: "an archive tool writes the paths inside the archive",
	ar: "an archive tool writes the paths inside the archive",
	gunzip: "a decompressor writes next to its input",
	gzip: "a compressor writes next to its input",
	bunzip2: "a decompressor writes next to its input",
	bzip2: "a compressor writes next to its input",
	xz: "a compressor writes next to its input",
	unxz: "a decompressor writes next to its input",
	zstd: "a compressor writes next to its input",
	split: "split writes files it names itself",
	csplit: "split writes files it names itself",
	wget: "wget saves files it names itself",
};

// File writers: every operand is written, or only the last one (the destination).
export const WRITERS: Readonly<Record<string, "all" | "last">> = {
	rm: "all",
	rmdir: "all",
	touch: "all",
	mkdir: "all",
	truncate: "all",
	chmod: "all",
	chown: "all",
	chgrp: "all",
	unlink: "all",
	shred: "all",
	mkfifo: "all",
	mv: "all",
	tee: "all",
	cp: "last",
	ln: "last",
	link: "last",
	install: "last",
	rsync: "last",
};

// Options that take a value (so the value is not an operand), per writer.
export const VALUED: Readonly<Record<string, string>> = {
	truncate: "-s -r --size --reference",
	mkdir: "-m --mode",
	install: "-m -o -g -S --mode --owner --group --suffix",
	touch: "-d -t -r --date --reference",
	cp: "-S --suffix",
	mv: "-S --suffix",
	ln: "-S --suffix",
	shred: "-n -s --iterations --size",
	chmod: "--reference",
	chown: "--reference",
	chgrp: "--reference",
	rsync: "-e --rsh --exclude --include --filter -f",
};

// Programs that only read files (their `-o` and `-i` mean other things).
export const READERS: ReadonlySet<string> = new Set(
	(
		"ls cat head tail wc grep egrep fgrep rg ag echo printf pwd true false test [ [[ which type file stat du df " +
		"diff cmp cut tr basename dirname realpath readlink date whoami id uname jq nl od hexdump sha1sum sha256sum " +
		"sha512sum md5sum cksum seq sleep column comm join paste fold rev tac strings tree"
	).split(" "),
);

// Programs (and subcommands) that use the network.
export const NETWORK: Readonly<Record<string, readonly string[] | "*">> = {
	curl: "*",
	wget: "*",
	ssh: "*",
	scp: "*",
	sftp: "*",
	nc: "*",
	ncat: "*",
	netcat: "*",
	telnet: "*",
	ftp: "*",
	socat: "*",
	http: "*",
	https: "*",
	xh: "*",
	aria2c: "*",
	ping: "*",
	dig: "*",
	nslookup: "*",
	host: "*",
	whois: "*",
	gh: "*",
	npx: "*",
	git: ["push", "pull", "fetch", "clone", "ls-remote", "submodule", "remote"],
	npm: ["install", "i", "ci", "add", "update", "up", "publish", "exec", "create", "init", "view", "info", "audit"],
	pnpm: ["install", "i", "add", "update", "up", "publish", "dlx", "exec", "create"],
	yarn: ["install", "add", "upgrade", "up", "publish", "dlx", "create"],
	bun: ["install", "i", "add", "update", "publish", "x"],
	pip: ["install", "download"],
	pip3: ["install", "download"],
	uv: ["add", "sync", "pip", "run", "tool"],
	cargo: ["install", "fetch", "update", "publish", "add", "build", "run", "test"],
	go: ["get", "install", "mod", "build", "run", "test"],
	docker: ["pull", "push", "run", "build", "login"],
	podman: ["pull", "push", "run", "build", "login"],
	apt: "*",
	"apt-get": "*",
	brew: "*",
	gem: ["install", "update", "push"],
};

// Reserved words that open or close a group or a test: the command is what follows them.
export const PREFIXES: ReadonlySet<string> = new Set(["if", "then", "else", "elif", "do", "while", "until", "!", "{"]);
export const CLOSERS: ReadonlySet<string> = new Set(["fi", "done", "esac", "}"]);
// Constructs that bind variables or define code.
export const COMPOUND: ReadonlySet<string> = new Set(["for", "case", "select", "function", "coproc"]);
// Builtins that change which program a later name runs.
export const STATE: ReadonlySet<string> = new Set([
	"export",
	"declare",
	"typeset",
	"local",
	"readonly",
	"hash",
	"enable",
]);
// Programs that can create or move links.
export const LINKERS: ReadonlySet<string> = new Set(["ln", "link", "cp", "mv", "rsync", "install"]);
export const SYSTEM_PROGRAM: RegExp = /^\/(?:usr\/)?(?:local\/)?s?bin\/[^/]+$/;
