/** Which settings a model's endpoint is configured by, for the advice in a failed probe's line. */
export interface ModelSettingNames {
  /** The key's variable: `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`. */
  key: string;
  /** The base URL's variable: `OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`. */
  baseUrl: string;
}

/** The words of an endpoint's error body (`{ error: { message } }`, `{ error: "…" }`, `{ message }`), cut to one short line. */
export function errorMessageOf(body: unknown): string | undefined {
  const record = body as { error?: unknown; message?: unknown } | null;
  const nested = record?.error as { message?: unknown } | string | undefined;
  const text =
    typeof nested === "string" ? nested : typeof nested?.message === "string" ? nested.message : record?.message;
  if (typeof text !== "string" || text.trim().length === 0) return undefined;
  const line = text.split("\n", 1)[0]!.trim();
  return line.length > 160 ? `${line.slice(0, 160)}…` : line;
}

const NO_SUCH_MODEL =
  /model_not_found|model[^.]*\b(not found|does not exist|not exist|unknown)|unknown model|no such model/i;
const NO_TOOLS = /(does not|doesn't|not) support (tools|tool|function)|tools? (are|is) not supported/i;

/**
 * What an HTTP error from a model endpoint means and what to do, in one clause: "the API key
 * was refused", "no such model", "this model cannot call tools"… The endpoint's own words are
 * added where they help, never for 401/403 (they may quote part of the key).
 */
export function httpVerdict(status: number, body: unknown, names: ModelSettingNames): string {
  const said = errorMessageOf(body);
  const quoted = said ? ` ("${said}")` : "";
  if (status === 401 || status === 403) return `the API key was refused: check ${names.key}`;
  if (said !== undefined && NO_SUCH_MODEL.test(said)) return `no such model${quoted}: check OPSPILOT_MODEL`;
  if (said !== undefined && NO_TOOLS.test(said))
    return `this model cannot call tools${quoted}: opspilot needs one that can`;
  if (status === 404)
    return `nothing answers chat requests at this URL: check ${names.baseUrl} (it usually ends in /v1)`;
  if (status === 429) return `rate limited or out of quota${quoted}: check the account's limits`;
  if (status >= 500) return `the endpoint failed${quoted}: try again later or check the provider's status`;
  return `the endpoint refused the request${quoted}`;
}

/** What a request that got no answer means and what to do. */
export function transportVerdict(errorClass: string, timeoutMs: number, names: ModelSettingNames): string {
  if (errorClass === "timeout")
    return `no answer within ${timeoutMs / 1000} s: the endpoint or the model is overloaded or stuck`;
  if (errorClass === "ENOTFOUND" || errorClass === "EAI_AGAIN")
    return `the host name does not resolve: check ${names.baseUrl}`;
  if (/^(CERT_|ERR_TLS|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_VERIFY)/.test(errorClass))
    return `its TLS certificate is not trusted: check ${names.baseUrl} (or NODE_EXTRA_CA_CERTS)`;
  return `unreachable: check ${names.baseUrl} and that the endpoint is running`;
}
