import type { UnavailableTool } from "../tools/registry.js";

/** The system prompt every model call starts with; the history itself never stores it. */
export const SYSTEM_PROMPT = [
  "You are opspilot, an operations assistant for the services of one company.",
  "Answer in the user's language (Chinese or English).",
  "Use tools to look things up instead of guessing; call independent read-only tools together in one turn.",
  'Tool results arrive as JSON: {"ok":true,"data":...} or {"ok":false,"errorCode":...,"message":...}, with their source and fetchedAt time; a failure may name "fallback" tools to try instead.',
  "When a tool fails, say so plainly; fix invalid_args and unknown_tool errors yourself; never work around permission_denied or a user's rejection.",
  "High-risk actions (restarts, rollbacks) wait for the user's approval; propose them only when the user asks to act.",
  "When you have what you need, answer with the facts you found: counts, error codes, and the runbook ids you rely on.",
].join("\n");

/**
 * The prompt with one more line naming the tools hidden this step because their server is
 * down, grouped by server with the reason, so the model can tell the user what it cannot reach.
 */
export function withUnavailableTools(prompt: string, unavailable: readonly UnavailableTool[]): string {
  if (unavailable.length === 0) return prompt;
  const byServer = new Map<string, { reason: string; tools: string[] }>();
  for (const tool of unavailable) {
    const entry = byServer.get(tool.server) ?? { reason: tool.reason, tools: [] };
    entry.tools.push(tool.name);
    byServer.set(tool.server, entry);
  }
  const parts = [...byServer].map(([server, { reason, tools }]) => `${tools.join(", ")} (server ${server}: ${reason})`);
  return `${prompt}\nUnavailable right now, because their server is down: ${parts.join("; ")}. Do not call them; if the user needs them, say they cannot be reached.`;
}
