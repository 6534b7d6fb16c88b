/** Value at quantile `q` (0..1) of `values`, linear between neighbours; NaN when empty. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  const above = Math.ceil(position);
  return sorted[below]! + (sorted[above]! - sorted[below]!) * (position - below);
}

/** Median of `values`. */
export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/**
 * Times each side once per round after one untimed run each, the order rotating from round to
 * round so whatever else the machine does spreads over all sides; returns each side's median
 * and the median of its per-round ratios over the first side.
 */
export async function pairedRounds(
  rounds: number,
  sides: Array<() => Promise<number>>,
): Promise<Array<{ ms: number; ratio: number }>> {
  for (const side of sides) await side();
  const times: number[][] = sides.map(() => []);
  for (let round = 0; round < rounds; round += 1) {
    for (let turn = 0; turn < sides.length; turn += 1) {
      const side = (round + turn) % sides.length;
      times[side]!.push(await sides[side]!());
    }
  }
  return times.map((values) => ({
    ms: median(values),
    ratio: median(values.map((value, i) => value / times[0]![i]!)),
  }));
}

/** Mean of `values`. */
export function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** Rounds for the report and the JSON file. */
export function round(value: number, digits = 3): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** Accumulated time and calls per label, filled by methods wrapped with `wrapMethods`. */
export class Meter {
  private readonly totals = new Map<string, { ms: number; calls: number }>();

  /** Adds one timed call under `label`. */
  add(label: string, ms: number): void {
    const entry = this.totals.get(label) ?? { ms: 0, calls: 0 };
    entry.ms += ms;
    entry.calls += 1;
    this.totals.set(label, entry);
  }

  /** Milliseconds spent under `label` since the last reset. */
  ms(label: string): number {
    return this.totals.get(label)?.ms ?? 0;
  }

  /** Calls made under `label` since the last reset. */
  calls(label: string): number {
    return this.totals.get(label)?.calls ?? 0;
  }

  /** Forgets everything measured so far. */
  reset(): void {
    this.totals.clear();
  }
}

/**
 * Replaces the named async methods of `target` in place with timed versions that report to
 * `meter` under `label`, so a checkpointer or a storage shows where a step's time goes.
 */
export function wrapMethods(target: object, names: readonly string[], meter: Meter, label: string): void {
  const record = target as Record<string, unknown>;
  for (const name of names) {
    const original = record[name];
    if (typeof original !== "function") throw new Error(`wrapMethods: ${name} is not a method`);
    record[name] = async function timed(this: unknown, ...args: unknown[]) {
      const started = performance.now();
      try {
        return await (original as (...a: unknown[]) => Promise<unknown>).apply(this, args);
      } finally {
        meter.add(label, performance.now() - started);
      }
    };
  }
}
