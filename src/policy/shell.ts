/**
 * The paths an ordinary shell command would write: redirection targets, `tee`, and the operands of commands that
 * create, change or remove files. A heuristic for catching obvious writes into skill folders, not a sandbox: a
 * shell can write anywhere its user can (through scripts, interpreters, variables), and the docs say so.
 */
export function shellWriteTargets(command: string): string[] {
	const targets: string[] = [];
	for (const segment of command.split(/&&|\|\||;|\||\n/)) {
		const words = splitWords(segment);
		collectRedirections(words, targets);
		collectCommandTargets(
			words.filter((w) => !/^\d*>>?|^&>/.test(w)),
			targets,
		);
	}
	return targets;
}

const WRITERS: Readonly<Record<string, "all" | "last">> = {
	rm: "all",
	rmdir: "all",
	touch: "all",
	mkdir: "all",
	truncate: "all",
	chmod: "all",
	chown: "all",
	unlink: "all",
	shred: "all",
	mv: "all",
	cp: "last",
	ln: "last",
	install: "last",
	rsync: "last",
};

function collectRedirections(words: string[], targets: string[]): void {
	for (let i = 0; i < words.length; i++) {
		const word = words[i] ?? "";
		const attached = /^(?:\d*>>?|&>>?)([^>&].*)$/.exec(word);
		if (attached?.[1]) targets.push(attached[1]);
		else if (/^(?:\d*>>?|&>>?)$/.test(word) && words[i + 1]) targets.push(words[i + 1] as string);
	}
}

function collectCommandTargets(words: string[], targets: string[]): void {
	const name = (words[0] ?? "").split("/").at(-1) ?? "";
	const operands = words.slice(1).filter((w) => !w.startsWith("-"));
	if (name === "tee") targets.push(...operands);
	else if (name === "sed" && words.some((w) => /^-i/.test(w) || w === "--in-place")) targets.push(...operands.slice(1));
	else if (name === "dd") targets.push(...words.filter((w) => w.startsWith("of=")).map((w) => w.slice(3)));
	else if (WRITERS[name] === "all")
		targets.push(...operands.filter((w) => !/^[0-7]{3,4}$|^[ugoa]*[+-=][rwxX]+$/.test(w)));
	else if (WRITERS[name] === "last" && operands.length > 0) targets.push(operands.at(-1) as string);
}

/** Splits on whitespace, keeping quoted text together and dropping the quotes. */
function splitWords(text: string): string[] {
	const words: string[] = [];
	for (const match of text.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) words.push(match[1] ?? match[2] ?? match[3] ?? "");
	return words;
}
