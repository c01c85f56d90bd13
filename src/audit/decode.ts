// Turns a file's bytes into the text a program would run, whatever its encoding: BOMs (UTF-8, UTF-16, UTF-32),
// UTF-16 and UTF-32 without a BOM (told by where the zero bytes sit), and UTF-8 with invalid bytes (a Latin-1 comment
// becomes U+FFFD; ASCII is never swallowed). NUL bytes are dropped, as bash and dash drop them when they read a
// script, so `cu\0rl` reads as the `curl` that runs. Then decides whether the text is text or binary.

/** What the first 8 KiB of a file say: its encoding, how noisy it is and whether it starts with a shebang. */
export interface TextSniff {
	encoding: "utf-8" | "utf-16le" | "utf-16be" | "utf-32le" | "utf-32be";
	/** Share of the first 8 KiB that is NUL, a control character or undecodable (0 to 1). */
	noise: number;
	shebang: boolean;
}

const HEAD = 8192;

/** Sniffs the encoding (its BOM or its zero-byte pattern, UTF-8 otherwise) and the noise of the first 8 KiB. */
export function sniffText(bytes: Uint8Array): TextSniff {
	const encoding = sniffEncoding(bytes);
	const head = decodeRaw(bytes.subarray(0, HEAD), encoding);
	return { encoding, noise: noiseOf(head), shebang: head.replace(/^\0+/, "").startsWith("#!") };
}

/** Too much noise for text: a binary file unless something says it is a script. */
export function looksBinary(sniff: TextSniff): boolean {
	return sniff.noise > 0.1;
}

/** Decodes `bytes` in `encoding` with NULs dropped. */
export function decodeText(bytes: Uint8Array, encoding: TextSniff["encoding"]): string {
	const raw = decodeRaw(bytes, encoding);
	return raw.includes("\0") ? raw.replaceAll("\0", "") : raw;
}

function decodeRaw(bytes: Uint8Array, encoding: TextSniff["encoding"]): string {
	if (encoding === "utf-32le" || encoding === "utf-32be") return decodeUtf32(bytes, encoding === "utf-32le");
	return new TextDecoder(encoding).decode(bytes);
}

function sniffEncoding(bytes: Uint8Array): TextSniff["encoding"] {
	const [a, b, c, d] = bytes;
	if (a === 0xff && b === 0xfe && c === 0 && d === 0) return "utf-32le";
	if (a === 0 && b === 0 && c === 0xfe && d === 0xff) return "utf-32be";
	if (a === 0xff && b === 0xfe) return "utf-16le";
	if (a === 0xfe && b === 0xff) return "utf-16be";
	if (a === 0xef && b === 0xbb && c === 0xbf) return "utf-8";
	// Without a BOM: text in UTF-16 or UTF-32 has its zero bytes in fixed places; binary data has them anywhere.
	const length = Math.min(bytes.length, HEAD) & ~3;
	if (length < 4) return "utf-8";
	// No zero byte at all (most files): UTF-8, as the counts below would say.
	if (bytes.subarray(0, length).indexOf(0) === -1) return "utf-8";
	const zeros = [0, 0, 0, 0];
	for (let i = 0; i < length; i++) if (bytes[i] === 0) (zeros[i & 3] as number)++;
	const [z0, z1, z2, z3] = zeros as [number, number, number, number];
	const quads = length / 4;
	if (z1 > 0.9 * quads && z2 > 0.9 * quads && z3 > 0.9 * quads && z0 < 0.1 * quads) return "utf-32le";
	if (z0 > 0.9 * quads && z1 > 0.9 * quads && z2 > 0.9 * quads && z3 < 0.1 * quads) return "utf-32be";
	const even = z0 + z2;
	const odd = z1 + z3;
	const pairs = length / 2;
	if (odd > 0.4 * pairs && even < 0.05 * pairs) return "utf-16le";
	if (even > 0.4 * pairs && odd < 0.05 * pairs) return "utf-16be";
	return "utf-8";
}

function decodeUtf32(bytes: Uint8Array, little: boolean): string {
	const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
	const start = bytes.length >= 4 && view.getUint32(0, little) === 0xfeff ? 4 : 0;
	const parts: string[] = [];
	let chunk: number[] = [];
	for (let i = start; i + 4 <= bytes.length; i += 4) {
		const code = view.getUint32(i, little);
		chunk.push(code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? code : 0xfffd);
		if (chunk.length === 8192) {
			parts.push(String.fromCodePoint(...chunk));
			chunk = [];
		}
	}
	parts.push(String.fromCodePoint(...chunk));
	return parts.join("");
}

/** The characters {@link noiseOf} counts. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it counts
const NOISE = /[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f\ufffd]/;

/** NULs, control characters other than whitespace and escape, and U+FFFD, as a share of `head`. */
function noiseOf(head: string): number {
	// Most files have none: one regular-expression scan says so faster than reading the characters one by one.
	if (head.length === 0 || !NOISE.test(head)) return 0;
	let bad = 0;
	for (let i = 0; i < head.length; i++) {
		const code = head.charCodeAt(i);
		if (code === 0xfffd || (code < 0x20 && code !== 9 && code !== 10 && code !== 13 && code !== 12 && code !== 27))
			bad++;
	}
	return bad / head.length;
}

/** Formats identified by their first bytes that hold no code: images, fonts, audio, video, PDF. */
export function mediaKind(bytes: Uint8Array): string | undefined {
	const [a, b, c, d] = bytes;
	const ascii = (from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));
	if (a === 0x89 && ascii(1, 8) === "PNG\r\n\x1a\n") return "PNG image";
	if (a === 0xff && b === 0xd8 && c === 0xff) return "JPEG image";
	if (ascii(0, 4) === "GIF8") return "GIF image";
	if (ascii(0, 4) === "RIFF" && ["WEBP", "WAVE", "AVI "].includes(ascii(8, 12))) return `${ascii(8, 12).trim()} media`;
	if (a === 0 && b === 0 && (c === 1 || c === 2) && d === 0) return "icon";
	if (ascii(0, 2) === "BM" && bytes[6] === 0 && bytes[7] === 0 && bytes[8] === 0 && bytes[9] === 0)
		return "bitmap image";
	if ((a === 0 && b === 1 && c === 0 && d === 0) || ["OTTO", "true", "ttcf", "wOFF", "wOF2"].includes(ascii(0, 4)))
		return "font";
	if (ascii(0, 5) === "%PDF-") return "PDF document";
	if (ascii(0, 3) === "ID3" || ascii(0, 4) === "OggS" || ascii(0, 4) === "fLaC") return "audio";
	if (ascii(4, 8) === "ftyp") return "video";
	if (a === 0x1a && b === 0x45 && c === 0xdf && d === 0xa3) return "video";
	if (ascii(0, 4) === "II*\0" || ascii(0, 4) === "MM\0*") return "TIFF image";
	if (ascii(0, 4) === "icns" || ascii(0, 4) === "8BPS") return "image";
	return undefined;
}

/**
 * The printable lines of a binary file, others blanked so line numbers hold: a file that is both an image and a
 * shell script (bash skips the lines it cannot run) still shows its commands to the rules.
 */
export function printableLines(bytes: Uint8Array): string {
	const parts: string[] = [];
	let start = 0;
	let printable = true;
	let nuls = 0;
	for (let i = 0; i <= bytes.length; i++) {
		const byte = i < bytes.length ? (bytes[i] as number) : 10;
		if (byte !== 10) {
			// NULs are dropped, as the shell drops them: `c\0url` is still `curl`.
			if (byte === 0) nuls++;
			const lineEnd = byte === 13 && (i + 1 === bytes.length || bytes[i + 1] === 10);
			if (printable && (byte > 0x7e || (byte < 0x20 && byte !== 0 && byte !== 9 && !lineEnd))) printable = false;
			continue;
		}
		const end = i > start && bytes[i - 1] === 13 ? i - 1 : i;
		const length = end - start - nuls;
		if (printable && length >= 6 && end - start <= 4096 * 4) {
			const line = String.fromCharCode(...bytes.subarray(start, end));
			parts.push(nuls > 0 ? line.replaceAll("\0", "") : line);
		}
		nuls = 0;
		if (i < bytes.length) parts.push("\n");
		start = i + 1;
		printable = true;
	}
	return parts.join("");
}
