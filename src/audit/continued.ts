// Shell lines continued onto the next one (a trailing `\`, `|`, `&&` or `||`), read as the one line the shell runs.

/**
 * Joins shell continuation lines into the logical line the shell runs: a line ending in an unescaped `\` joins the
 * next directly (`cu\` + `rl` is `curl`), one ending in `|`, `&&` or `||` after a space. A line whose end sits in a
 * comment is not continued, as in the shell, so a comment can never swallow the command after it.
 */
export function shellLines(emit: (line: string, number: number) => void): {
	push: (line: string, number: number) => void;
	flush: () => void;
} {
	let held: { text: string; line: number } | undefined;
	return {
		push(line, number) {
			const text = held ? held.text + line : line;
			const first = held?.line ?? number;
			held = undefined;
			const join = continuation(line);
			if (join === "escape") held = { text: text.slice(0, -1), line: first };
			else if (join === "operator") held = { text: `${text} `, line: first };
			else emit(text, first);
		},
		flush() {
			if (held) emit(held.text, held.line);
			held = undefined;
		},
	};
}

/** How a line continues onto the next one in a shell, if it does. */
function continuation(line: string): "escape" | "operator" | undefined {
	const end = line.trimEnd();
	const last = end.at(-1);
	if (last !== "\\" && last !== "|" && !end.endsWith("&&")) return undefined;
	if (endsInComment(line)) return undefined;
	if (line.endsWith("\\")) {
		let slashes = 0;
		for (let i = line.length - 1; i >= 0 && line[i] === "\\"; i--) slashes++;
		return slashes % 2 === 1 ? "escape" : undefined;
	}
	return last === "|" || end.endsWith("&&") ? "operator" : undefined;
}

/** Whether a `#` at the start of a word, outside quotes, makes the end of the line a comment. */
function endsInComment(line: string): boolean {
	for (let i = 0; i < line.length; i++) {
		const c = line[i];
		if (c === "\\") i++;
		else if (c === "'" || c === '"') {
			const close = line.indexOf(c, i + 1);
			if (close === -1) return false;
			i = close;
		} else if (c === "#" && (i === 0 || line[i - 1] === " " || line[i - 1] === "\t")) return true;
	}
	return false;
}
