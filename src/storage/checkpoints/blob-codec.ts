import { brotliCompressSync, brotliDecompressSync, constants } from "node:zlib";

/** Marks a stored value's type when its bytes are compressed. */
const COMPRESSED = "+br";

/** Values shorter than this are stored as they are: compressing them saves little. */
const COMPRESS_MIN_BYTES = 256;

/**
 * Brotli at a low quality, for what a step writes as it runs, with a 256 KB window (stored
 * values are smaller; a small window keeps each call's buffers small).
 */
const IN_STEP = {
  params: {
    [constants.BROTLI_PARAM_QUALITY]: 3,
    [constants.BROTLI_PARAM_LGWIN]: 18,
    [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
  },
};

/** A value's type and bytes as stored before compression: files of the old checkpoint format mark compressed values `+br`. */
export function decompressed(type: string, value: Uint8Array): [string, Uint8Array] {
  return type.endsWith(COMPRESSED) ? [type.slice(0, -COMPRESSED.length), brotliDecompressSync(value)] : [type, value];
}

/** Text a step stores: compressed when long (a BLOB), as it is when short (TEXT). */
export function packText(text: string): string | Buffer {
  const bytes = Buffer.byteLength(text);
  if (bytes < COMPRESS_MIN_BYTES) return text;
  const packed = brotliCompressSync(text, IN_STEP);
  return packed.byteLength < bytes ? packed : text;
}

/** The text `packText` stored. */
export function unpackText(stored: string | Uint8Array): string {
  return typeof stored === "string" ? stored : brotliDecompressSync(stored).toString("utf8");
}
