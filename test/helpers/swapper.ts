// A small C program that exchanges two paths with renameat2(RENAME_EXCHANGE) in a tight loop, for tests that race
// a reader against a folder ⇄ symlink swap. Built once per test file; undefined when no C compiler works.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";

const SWAPPER_C = `
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
static volatile sig_atomic_t stop = 0;
static void on_term(int sig) { (void)sig; stop = 1; }
int main(int argc, char **argv) {
	if (argc != 4) return 2;
	/* Pauses between swaps, changed every 2,048 swaps, so the swaps land at every point of the reader's calls. */
	static const long pace[] = {0, 64, 256, 1024, 4096};
	signal(SIGTERM, on_term);
	time_t end = time(NULL) + atoi(argv[3]);
	unsigned long swaps = 0;
	/* Stop only after an even number of swaps, so the tree is left as it was. */
	while (!stop || (swaps & 1)) {
		if (syscall(SYS_renameat2, AT_FDCWD, argv[1], AT_FDCWD, argv[2], RENAME_EXCHANGE) != 0) { perror("renameat2"); return 1; }
		swaps++;
		for (volatile long i = 0; i < pace[(swaps >> 11) % 5]; i++) {}
		if ((swaps & 1023) == 0 && time(NULL) > end) stop = 1;
	}
	printf("%lu\\n", swaps);
	return 0;
}
`;

/** Compiles the swapper into `dir`; undefined when `cc` is missing or fails. */
export async function buildSwapper(dir: string): Promise<string | undefined> {
	try {
		const source = join(dir, "swapper.c");
		await writeFile(source, SWAPPER_C);
		const binary = join(dir, "swapper");
		execFileSync("cc", ["-O2", "-o", binary, source], { stdio: "pipe" });
		return binary;
	} catch {
		return undefined;
	}
}

/** Starts exchanging `a` and `b` (at most 60 s); `done` resolves with the swap count after SIGTERM. */
export function startSwapper(binary: string, a: string, b: string): { child: ChildProcess; done: Promise<number> } {
	const child = spawn(binary, [a, b, "60"], { stdio: ["ignore", "pipe", "pipe"] });
	let out = "";
	child.stdout?.on("data", (chunk: Buffer) => {
		out += chunk.toString();
	});
	const done = new Promise<number>((resolve, reject) => {
		child.on("error", reject);
		child.on("exit", (code) => (code === 0 ? resolve(Number(out.trim())) : reject(new Error(`swapper exit ${code}`))));
	});
	return { child, done };
}
