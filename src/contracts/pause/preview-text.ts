import type { CallPreview } from "./pause.js";

function shown(value: unknown): string {
  if (value === null || value === undefined) return "(none)";
  return typeof value === "string" ? value : JSON.stringify(value);
}

/**
 * A write's dry-run preview as lines of plain text, the same on every surface that shows a
 * pause (CLI, chat notices): `spec.replicas: 3 → 5`, then the note or why there is no dry run.
 */
export function previewLines(preview: CallPreview | undefined): string[] {
  if (!preview) return [];
  if (preview.error) return [`dry run: ${preview.error}`];
  const changes = preview.changes.map((change) => `${change.path}: ${shown(change.from)} → ${shown(change.to)}`);
  const head =
    changes.length > 0 ? ["dry run, will change:", ...changes.map((line) => `  ${line}`)] : ["dry run: no change"];
  return [...head, ...(preview.note ? [preview.note] : [])];
}
