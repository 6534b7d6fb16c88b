import type { ToolPolicy } from "../config/schema.js";
import { parseDuration } from "../contracts/formats/duration.js";
import type { ErrorCode, Observation } from "../contracts/observation.js";
import { errorCodesWith } from "../contracts/error-codes.js";
import type { Role } from "../contracts/user.js";
import { roleAllows, type ToolRegistry } from "./registry.js";
import type { AskField, PolicySource, ToolDefinition } from "./types.js";

/** The policy source of what a tool's own definition says (every tool of this process). */
export const BUILT_IN_POLICY = "built-in";

/** The fields whose origin is shown with a tool's policy. */
const SOURCED_FIELDS = ["readOnly", "risk", "idempotent", "egress"] as const;

/**
 * Applies the config file's `tools` overrides to a list of tools. Every entry whose key
 * matches a tool's name applies to it; where several set the same field, the most specific
 * wins: an exact name beats any glob, and among globs the one with more literal characters
 * (not `*` or `?`) wins, a tie going to the entry written later in the file. `enabled: false`
 * removes the tool; every other field replaces the tool's own setting, and the entry that set
 * `readOnly`, `risk`, `idempotent` or `egress` becomes that field's `policySource`. `askUser` fields the
 * tool's arguments do not have are ignored, so a policy can never ask for a field the tool drops.
 */
export function applyToolPolicy(
  tools: readonly ToolDefinition[],
  policies: Readonly<Record<string, ToolPolicy>>,
): ToolDefinition[] {
  const ranked = rankPatterns(Object.keys(policies));
  return tools.flatMap((tool) => {
    const { policy, setBy } = effectivePolicy(tool.name, ranked, policies);
    if (policy.enabled === false) return [];
    return [withPolicy(tool, policy, setBy)];
  });
}

/**
 * The policies with a server-wide `approvals.expiresAfter` (`OPSPILOT_APPROVAL_EXPIRES_AFTER`)
 * beneath them: it applies to every tool as the least specific entry, so any entry that sets
 * `expiresAfter` for a tool (`"never"` included) wins over it. Unchanged without a default.
 */
export function withApprovalDefault(
  policies: Readonly<Record<string, ToolPolicy>>,
  expiresAfter: string | undefined,
): Record<string, ToolPolicy> {
  if (expiresAfter === undefined) return { ...policies };
  const everyTool = policies["*"];
  const approvals = { expiresAfter, ...stripUndefined(everyTool?.approvals ?? {}) };
  // A "*" already written keeps its place among the entries; otherwise the default goes first, below every other.
  return everyTool ? { ...policies, "*": { ...everyTool, approvals } } : { "*": { approvals }, ...policies };
}

/** Where each of a tool's `readOnly`, `risk` and `idempotent` came from; a tool that says nothing: its own definition. */
export function policySourceOf(tool: Pick<ToolDefinition, "policySource">): PolicySource {
  return (
    tool.policySource ?? {
      readOnly: BUILT_IN_POLICY,
      risk: BUILT_IN_POLICY,
      idempotent: BUILT_IN_POLICY,
      egress: BUILT_IN_POLICY,
    }
  );
}

/** Whether a policy key (exact name or glob with `*` and `?`) matches a tool name. */
export function patternMatches(pattern: string, name: string): boolean {
  if (!/[*?]/.test(pattern)) return pattern === name;
  const source = [...pattern]
    .map((char) => (char === "*" ? ".*" : char === "?" ? "." : char.replace(/[.+^${}()|[\]\\-]/g, "\\$&")))
    .join("");
  return new RegExp(`^${source}$`, "s").test(name);
}

/** Failures after which another tool may help; refusals, rejections and unknown outcomes never point elsewhere. */
const FALLBACK_AFTER: ReadonlySet<ErrorCode> = errorCodesWith("fallback");

/**
 * Adds the tool's configured fallbacks to a failed observation: only tools that exist, that
 * `role` may call and whose server is up. A permission refusal, a user's rejection, a cancel,
 * a skip, bad arguments or an unknown write outcome get none: those are not the tool's fault,
 * and a hint to try another way there would work around the user or the rules. Nor does a
 * write that timed out without being idempotent: it may have taken effect.
 */
export function withFallback(
  observation: Observation,
  tool: ToolDefinition,
  context: { registry: ToolRegistry; role: Role },
): Observation {
  if (observation.ok || !FALLBACK_AFTER.has(observation.errorCode) || !tool.fallback) return observation;
  if (!tool.readOnly && tool.idempotent !== true && observation.errorCode === "timeout") return observation;
  const usable = tool.fallback.filter((name) => {
    const candidate = context.registry.get(name);
    return (
      candidate !== undefined &&
      name !== tool.name &&
      roleAllows(candidate, context.role) &&
      context.registry.isAvailable(name)
    );
  });
  return usable.length > 0 ? { ...observation, fallback: usable } : observation;
}

/** Policy keys from least to most specific, so later ones override earlier ones field by field. */
function rankPatterns(patterns: readonly string[]): string[] {
  const literal = (pattern: string) => pattern.replace(/[*?]/g, "").length;
  const exact = (pattern: string) => !/[*?]/.test(pattern);
  return patterns
    .map((pattern, index) => ({ pattern, index }))
    .sort(
      (a, b) =>
        Number(exact(a.pattern)) - Number(exact(b.pattern)) ||
        literal(a.pattern) - literal(b.pattern) ||
        a.index - b.index,
    )
    .map((entry) => entry.pattern);
}

/** A tool's merged policy and, for each field it sets, the key that won. */
interface EffectivePolicy {
  policy: ToolPolicy;
  setBy: Partial<Record<keyof ToolPolicy, string>>;
}

function effectivePolicy(
  name: string,
  ranked: readonly string[],
  policies: Readonly<Record<string, ToolPolicy>>,
): EffectivePolicy {
  let policy: ToolPolicy = {};
  const setBy: EffectivePolicy["setBy"] = {};
  for (const pattern of ranked) {
    if (!patternMatches(pattern, name)) continue;
    const defined = Object.entries(policies[pattern]!).filter(([, value]) => value !== undefined);
    // `approvals` merges key by key: one entry may set when approvals expire, another who must give them.
    const approvals = policies[pattern]!.approvals && {
      approvals: { ...policy.approvals, ...stripUndefined(policies[pattern]!.approvals) },
    };
    policy = { ...policy, ...Object.fromEntries(defined), ...approvals };
    for (const [field] of defined) setBy[field as keyof ToolPolicy] = pattern;
  }
  return { policy, setBy };
}

function withPolicy(tool: ToolDefinition, policy: ToolPolicy, setBy: EffectivePolicy["setBy"]): ToolDefinition {
  if (Object.keys(policy).length === 0) return tool;
  const overridden = SOURCED_FIELDS.filter((field) => setBy[field] !== undefined);
  const policySource = Object.fromEntries(
    overridden.map((field) => [field, `config tools[${JSON.stringify(setBy[field])}]`]),
  ) as Partial<PolicySource>;
  const fields = new Set(Object.keys(tool.schema.shape));
  const askUser =
    policy.askUser &&
    (Object.fromEntries(Object.entries(policy.askUser).filter(([field]) => fields.has(field))) as Record<
      string,
      AskField
    >);
  return {
    ...tool,
    ...(policy.readOnly !== undefined ? { readOnly: policy.readOnly } : {}),
    ...(policy.risk !== undefined ? { risk: policy.risk } : {}),
    ...(policy.roles !== undefined ? { roles: policy.roles } : {}),
    ...(askUser !== undefined ? { askUser } : {}),
    ...(policy.timeoutMs !== undefined ? { timeoutMs: policy.timeoutMs } : {}),
    ...(policy.idempotent !== undefined ? { idempotent: policy.idempotent } : {}),
    ...(policy.egress !== undefined ? { egress: policy.egress } : {}),
    ...(policy.trusted !== undefined ? { trusted: policy.trusted } : {}),
    ...(policy.rateLimit !== undefined ? { rateLimit: policy.rateLimit } : {}),
    ...(policy.fallback !== undefined ? { fallback: policy.fallback } : {}),
    ...approvalExpiry(policy.approvals?.expiresAfter),
    ...(policy.approvals?.required !== undefined ? { approvalsRequired: policy.approvals.required } : {}),
    ...(policy.approvals?.distinctFromRequester !== undefined
      ? { approvalsDistinctFromRequester: policy.approvals.distinctFromRequester }
      : {}),
    ...(overridden.length > 0 ? { policySource: { ...policySourceOf(tool), ...policySource } } : {}),
  };
}

/** The tool fields an `approvals.expiresAfter` sets: its length in ms, or none for `never` (the schema has checked the text). */
function approvalExpiry(expiresAfter: string | undefined): Pick<ToolDefinition, "approvalExpiresAfterMs"> {
  if (expiresAfter === undefined) return {};
  return { approvalExpiresAfterMs: expiresAfter === "never" ? undefined : parseDuration(expiresAfter) };
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as Partial<T>;
}
