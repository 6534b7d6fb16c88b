/** Text styles for the terminal; identity functions when colors are off (`mark` then brackets its text). */
export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  /** Marks text the user must notice inside other text: reversed colours, or «…» when colours are off. */
  mark(text: string): string;
}

const codes: Record<Exclude<keyof Style, "mark">, [number, number]> = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
};

/** ANSI styles when `enabled`, plain text otherwise. */
export function createStyle(enabled: boolean): Style {
  const entries = Object.entries(codes).map(([name, [open, close]]) => [
    name,
    enabled ? (text: string) => `\u001b[${open}m${text}\u001b[${close}m` : (text: string) => text,
  ]);
  const mark = enabled ? (text: string) => `\u001b[7m${text}\u001b[27m` : (text: string) => `«${text}»`;
  return { ...Object.fromEntries(entries), mark } as unknown as Style;
}

/** A stream the CLI may write to, as far as color detection needs. */
export interface ColorProbe {
  isTTY?: boolean;
  hasColors?: () => boolean;
}

/**
 * Colors only on a TTY. Node's `hasColors()` already honours NO_COLOR, NODE_DISABLE_COLORS,
 * FORCE_COLOR and TERM=dumb, so the CLI never reads the environment itself.
 */
export function colorsFor(stream: ColorProbe): boolean {
  return stream.isTTY === true && typeof stream.hasColors === "function" && stream.hasColors();
}
