import { ToolError } from "../../contracts/errors.js";
import { errorDetail, type ToolsetClient, type ToolsetRequest } from "./http-client.js";

/** A matcher of a silence, as Alertmanager's API v2 holds it. */
export interface SilenceMatcher {
  name: string;
  value: string;
  isRegex: boolean;
  isEqual?: boolean;
}

/** A silence as Alertmanager's API v2 returns it. */
export interface Silence {
  id: string;
  status: { state: "active" | "pending" | "expired" };
  matchers: SilenceMatcher[];
  startsAt: string;
  endsAt: string;
  createdBy: string;
  comment: string;
  updatedAt?: string;
}

/** A silence as the model reads it: the matchers in PromQL notation. */
export interface SilenceView {
  silenceId: string;
  state: string;
  matchers: string;
  startsAt: string;
  endsAt: string;
  createdBy: string;
  comment: string;
}

/**
 * Calls Alertmanager's API v2 and returns the body of a 2xx answer. Its refusal of a silence
 * (400, 422: a bad regex, a matcher that matches everything) is `invalid_args` with its own
 * message; 404 is `not_found`; what the client throws passes through.
 */
export async function alertmanagerBody(
  client: ToolsetClient,
  request: Omit<ToolsetRequest, "body"> & { body?: unknown },
): Promise<unknown> {
  const { status, body } = await client.send(request);
  if (status >= 200 && status < 300) return body;
  const detail = errorDetail(body) ?? `HTTP ${status}`;
  if (status === 400 || status === 422) throw new ToolError("invalid_args", `Alertmanager: ${detail}`);
  if (status === 404) throw new ToolError("not_found", `Alertmanager: ${detail}`);
  throw new ToolError("internal", `Alertmanager answered ${request.path} unexpectedly (${detail}).`);
}

/** Every silence Alertmanager holds (active, pending and recently expired). */
export async function listSilences(client: ToolsetClient, signal: AbortSignal): Promise<Silence[]> {
  return (await alertmanagerBody(client, { path: "/api/v2/silences", signal })) as Silence[];
}

/** One silence by id; `not_found` when Alertmanager has none with it. */
export async function getSilence(client: ToolsetClient, silenceId: string, signal: AbortSignal): Promise<Silence> {
  try {
    return (await alertmanagerBody(client, { path: `/api/v2/silence/${silenceId}`, signal })) as Silence;
  } catch (error) {
    if (error instanceof ToolError && error.errorCode === "not_found")
      throw new ToolError(
        "not_found",
        `Alertmanager has no silence ${silenceId}; list them with alertmanager_silences.`,
      );
    throw error;
  }
}

/** Matchers in PromQL notation: `alertname="X", service=~"pay.*"`. */
export function matchersText(matchers: readonly SilenceMatcher[]): string {
  return matchers
    .map((matcher) => {
      const equal = matcher.isEqual !== false;
      const operator = matcher.isRegex ? (equal ? "=~" : "!~") : equal ? "=" : "!=";
      return `${matcher.name}${operator}${JSON.stringify(matcher.value)}`;
    })
    .join(", ");
}

/** A silence as the model reads it. */
export function silenceView(silence: Silence): SilenceView {
  return {
    silenceId: silence.id,
    state: silence.status.state,
    matchers: matchersText(silence.matchers),
    startsAt: silence.startsAt,
    endsAt: silence.endsAt,
    createdBy: silence.createdBy,
    comment: silence.comment,
  };
}
