import { z } from "zod";
import { defineTool, type ToolDefinition } from "../types.js";
import type { ToolsetClient } from "./http-client.js";
import { listSilences, silenceView, type SilenceView } from "./alertmanager-api.js";

/** Most silences an observation lists. */
export const MAX_SILENCES = 30;

/** `alertmanager_silences`: the silences Alertmanager holds, newest end first. */
export function createAlertmanagerSilencesTool(client: ToolsetClient): ToolDefinition {
  return defineTool({
    name: "alertmanager_silences",
    description:
      "List Alertmanager's silences: id, state, matchers, start, end, who created it and why. By default the active " +
      'ones; "pending" (not started yet), "expired" or "all". contains keeps those whose matchers or comment hold the ' +
      `text (e.g. an alertname). At most ${MAX_SILENCES}; omitted counts the rest. Use it before creating a silence ` +
      "(one may exist already) and to find the id alertmanager_expire_silence needs.",
    schema: z.object({
      state: z
        .enum(["active", "pending", "expired", "all"])
        .default("active")
        .describe('"active" (default), "pending", "expired" or "all".'),
      contains: z
        .string()
        .min(1)
        .max(200)
        .optional()
        .describe("Only silences whose matchers or comment contain this text (case-insensitive)."),
    }),
    readOnly: true,
    risk: "low",
    timeoutMs: client.timeoutMs + 1_000,
    summarize(result) {
      const found = result as { state: string; count: number; silences: SilenceView[] };
      return [
        `${found.count} ${found.state} silence(s)`,
        ...found.silences.slice(0, 5).map((item) => `${item.silenceId} ${item.matchers} until ${item.endsAt}`),
      ];
    },
    async run(args, ctx) {
      const needle = args.contains?.toLowerCase();
      const silences = (await listSilences(client, ctx.signal))
        .filter((silence) => args.state === "all" || silence.status.state === args.state)
        .map(silenceView)
        .filter((view) => !needle || `${view.matchers} ${view.comment}`.toLowerCase().includes(needle))
        .sort((left, right) => right.endsAt.localeCompare(left.endsAt));
      return {
        state: args.state,
        count: silences.length,
        omitted: Math.max(0, silences.length - MAX_SILENCES),
        silences: silences.slice(0, MAX_SILENCES),
      };
    },
  });
}
