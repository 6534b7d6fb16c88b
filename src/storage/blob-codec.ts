import { brotliCompressSync, brotliDecompressSync, constants } from "node:zlib";

/** Marks a stored value's type when its bytes are compressed. */
const COMPRESSED = "+br";

/** Values shorter than this are stored as they are: compressing them saves little. */
export const COMPRESS_MIN_BYTES = 256;

/**
 * Brotli with a 256 KB window (stored values are smaller; a small window keeps each call's
 * buffers small): a middle quality for what a thread keeps when its run ends (most of the gain
 * of the highest, at a small part of its cost), a lower one for what a step writes as it runs.
 */
const optionsAt = (quality: number) => ({
  params: {
    [constants.BROTLI_PARAM_QUALITY]: quality,
    [constants.BROTLI_PARAM_LGWIN]: 18,
    [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
  },
});
const AT_REST = optionsAt(5);
const IN_STEP = optionsAt(3);

function compress(bytes: Uint8Array | string, options = AT_REST): Buffer {
  return brotliCompressSync(bytes, options);
}

/** The stored form of a value worth compressing (its type marked), or undefined to keep it as it is. */
export function compressed(type: string, value: Uint8Array): { type: string; value: Buffer } | undefined {
  if (type.endsWith(COMPRESSED) || value.byteLength < COMPRESS_MIN_BYTES) return undefined;
  const packed = compress(value);
  return packed.byteLength < value.byteLength ? { type: `${type}${COMPRESSED}`, value: packed } : undefined;
}

/** A stored value's type and bytes as they were before `compressed`. */
export function decompressed(type: string, value: Uint8Array): [string, Uint8Array] {
  return type.endsWith(COMPRESSED) ? [type.slice(0, -COMPRESSED.length), brotliDecompressSync(value)] : [type, value];
}

/** Text a step stores: compressed when long (a BLOB), as it is when short (TEXT). */
export function packText(text: string): string | Buffer {
  const bytes = Buffer.byteLength(text);
  if (bytes < COMPRESS_MIN_BYTES) return text;
  const packed = compress(text, IN_STEP);
  return packed.byteLength < bytes ? packed : text;
}

/** The text `packText` stored. */
export function unpackText(stored: string | Uint8Array): string {
  return typeof stored === "string" ? stored : brotliDecompressSync(stored).toString("utf8");
}
