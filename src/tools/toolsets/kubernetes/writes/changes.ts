import type { CallPreview } from "../../../../contracts/pause/pause.js";

const MAX_CHANGES = 20;

function leaves(value: unknown, path: string, out: Map<string, unknown>): void {
  if (value instanceof Date) out.set(path, value.toISOString());
  else if (Array.isArray(value)) value.forEach((item, index) => leaves(item, `${path}[${index}]`, out));
  else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      leaves(item, /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${path}.${key}` : `${path}["${key}"]`, out);
    }
  } else if (value !== undefined) out.set(path, value);
}

/** The leaves of `spec` that differ between the object now and the dry run's answer, as `{ path, from, to }`. */
export function changedFields(before: { spec?: unknown }, after: { spec?: unknown }): CallPreview["changes"] {
  const from = new Map<string, unknown>();
  const to = new Map<string, unknown>();
  leaves(before.spec, "spec", from);
  leaves(after.spec, "spec", to);
  const paths = [...new Set([...from.keys(), ...to.keys()])].filter(
    (path) => JSON.stringify(from.get(path)) !== JSON.stringify(to.get(path)),
  );
  return paths.slice(0, MAX_CHANGES).map((path) => ({ path, from: from.get(path) ?? null, to: to.get(path) ?? null }));
}
