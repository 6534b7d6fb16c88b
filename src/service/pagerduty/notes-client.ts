import type { AttemptOutcome } from "../notices/retried-call.js";

/** What one note request came to: created with its id, or refused (with whether trying again may help). */
export type PagerdutyNoteOutcome = AttemptOutcome<{ noteId: string }>;

/** Writes notes on PagerDuty incidents through its REST API v2. */
export interface PagerdutyNotesClient {
  /** `POST /incidents/{id}/notes` once (no retries); never throws. */
  addNote(incidentId: string, content: string, signal: AbortSignal): Promise<PagerdutyNoteOutcome>;
}

/** How the client reaches PagerDuty. */
export interface PagerdutyNotesClientOptions {
  /** `OPSPILOT_PAGERDUTY_API_TOKEN`: a REST API key. */
  token: string;
  /** `OPSPILOT_PAGERDUTY_FROM`: the e-mail of the PagerDuty user the notes are written as. */
  from: string;
  /** `OPSPILOT_PAGERDUTY_API_URL`: `https://api.pagerduty.com` in production. */
  apiUrl: string;
  /** Time limit of one request, in ms (10000 by default). */
  timeoutMs?: number;
}

/** Longest note PagerDuty takes, in characters. */
export const PAGERDUTY_NOTE_MAX_CHARS = 25_000;

/**
 * PagerDuty's REST API v2 over `fetch`, as it documents creating a note: `Authorization: Token
 * token=<key>`, the writing user's e-mail in `From`, the versioned `Accept` and a JSON body
 * `{ "note": { "content" } }`; it answers 201 with the note. A 429 (the key's rate limit) and 5xx
 * may be tried again; 401, 403, 404 and the rest are refusals.
 */
export function createPagerdutyNotesClient(options: PagerdutyNotesClientOptions): PagerdutyNotesClient {
  const base = options.apiUrl.replace(/\/+$/, "");
  const timeoutMs = options.timeoutMs ?? 10_000;
  return {
    async addNote(incidentId, content, signal) {
      let response: Response;
      try {
        response = await fetch(`${base}/incidents/${encodeURIComponent(incidentId)}/notes`, {
          method: "POST",
          headers: {
            authorization: `Token token=${options.token}`,
            from: options.from,
            accept: "application/vnd.pagerduty+json;version=2",
            "content-type": "application/json",
          },
          body: JSON.stringify({ note: { content: Array.from(content).slice(0, PAGERDUTY_NOTE_MAX_CHARS).join("") } }),
          signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
        });
      } catch (error) {
        const timedOut = error instanceof Error && error.name === "TimeoutError";
        return { ok: false, error: timedOut ? `no answer within ${timeoutMs} ms` : "unreachable", retry: true };
      }
      const body = (await response.json().catch(() => undefined)) as
        { note?: { id?: unknown }; error?: { message?: unknown } } | undefined;
      if (response.status === 201 || response.status === 200) {
        const noteId = body?.note?.id;
        return typeof noteId === "string"
          ? { ok: true, value: { noteId } }
          : { ok: false, error: "no note in the answer", retry: false };
      }
      const message = typeof body?.error?.message === "string" ? `: ${body.error.message}` : "";
      const error = `HTTP ${response.status}${message}`;
      if (response.status === 429) return { ok: false, error, retry: true, retryAfterMs: retryAfterOf(response) };
      return { ok: false, error, retry: response.status >= 500 };
    },
  };
}

/** `Retry-After`, else `ratelimit-reset` (seconds), as ms; undefined when neither is given. */
function retryAfterOf(response: Response): number | undefined {
  for (const name of ["retry-after", "ratelimit-reset"]) {
    const seconds = Number.parseInt(response.headers.get(name) ?? "", 10);
    if (!Number.isNaN(seconds)) return seconds * 1000;
  }
  return undefined;
}
