import type { z } from "zod";
import { callBase, type FailedCall, type PlannedCall } from "../../contracts/calls.js";
import type { Role, RunUser } from "../../contracts/user.js";
import type { ToolDefinition } from "../../tools/types.js";
import type { ToolRegistry } from "../../tools/registry.js";
import { roleAllows } from "../../tools/registry.js";
import { argsHash } from "../../contracts/formats/canonical.js";
import type { EgressNote, MissingField } from "../../contracts/pause/pause.js";
import type { ProposedCall } from "../../contracts/calls.js";
import { formatZodIssues } from "../../contracts/formats/zod-issues.js";

/** What `validate_calls` decides for one call, given the step's context. */
export interface PlanContext {
  registry: ToolRegistry;
  user: RunUser;
  /** In serial step mode, the only tool this step may call. */
  allowedTool?: string;
  /**
   * The note of an egress call in a tainted thread, for its args; absent while the thread is
   * untainted, when egress calls run as their risk says.
   */
  egressNote?: (args: Record<string, unknown>) => EgressNote;
}

/** Decides one proposed call's status (design §1 validate_calls); pure. */
export function planCall(call: ProposedCall, context: PlanContext): PlannedCall {
  const tool = context.registry.get(call.name);
  const base = {
    callId: call.id,
    tool: call.name,
    args: call.args,
    argsHash: argsHash(call.args),
    readOnly: tool?.readOnly ?? true,
    risk: tool?.risk ?? "low",
  } as const;
  const fail = (errorCode: FailedCall["failure"]["errorCode"], message: string): FailedCall => ({
    ...base,
    status: "failed",
    failure: { errorCode, message },
  });
  if (call.parseError !== undefined)
    return fail(
      "invalid_args",
      `The arguments for ${call.name || "this call"} are not valid JSON (${call.parseError}). Send them again as a JSON object.`,
    );
  if (context.allowedTool !== undefined && call.name !== context.allowedTool) {
    return fail("skipped", `Not run: only ${context.allowedTool} may be called in this step.`);
  }
  if (!tool)
    return fail(
      "unknown_tool",
      `There is no tool named "${call.name}". Available tools: ${context.registry.names().join(", ")}.`,
    );
  if (!roleAllows(tool, context.user.role)) return fail("permission_denied", notAllowed(context.user.role, tool.name));
  const missing = missingAskFields(tool, call.args);
  if (missing.length > 0) {
    const partial = tool.schema.partial(
      Object.fromEntries(missing.map((field) => [field.name, true])) as Record<string, true>,
    );
    const checked = partial.safeParse(call.args);
    if (!checked.success) return fail("invalid_args", describeIssues(tool.name, checked.error));
    return { ...base, ...egressOf(tool, call.args, context), status: "needs_params", missing };
  }
  const parsed = tool.schema.safeParse(call.args);
  if (!parsed.success) return fail("invalid_args", describeIssues(tool.name, parsed.error));
  const args = parsed.data as Record<string, unknown>;
  const checked = { ...base, args, argsHash: argsHash(args), ...egressOf(tool, args, context) };
  return { ...checked, status: checked.risk === "high" ? "needs_approval" : "ready" };
}

/**
 * An egress tool's call in a tainted thread waits for a person as a high-risk call does,
 * whatever the tool's own risk, so every check of an approval applies to it.
 */
function egressOf(
  tool: ToolDefinition,
  args: Record<string, unknown>,
  context: PlanContext,
): Partial<Pick<PlannedCall, "risk" | "egress">> {
  if (tool.egress !== true || !context.egressNote) return {};
  return { risk: "high", egress: context.egressNote(args) };
}

/**
 * Keeps at most `writesPerStep` writes of a step, in the model's order (design §1): each
 * further write is `skipped` and the model is asked to propose it again once it has seen
 * the result of the writes that run. Calls already refused do not count: they write nothing.
 */
export function limitWrites(calls: readonly PlannedCall[], writesPerStep: number): PlannedCall[] {
  const kept: PlannedCall[] = [];
  return calls.map((call) => {
    if (call.readOnly || call.status === "failed" || call.status === "done") return call;
    if (kept.length < writesPerStep) {
      kept.push(call);
      return call;
    }
    const first = kept.map((write) => `${write.tool} (${write.callId})`).join(", ");
    const limit = writesPerStep === 1 ? "one write runs" : `${writesPerStep} writes run`;
    return {
      ...callBase(call),
      status: "failed",
      failure: {
        errorCode: "skipped",
        message: `Not run: only ${limit} per step. Propose this call again after you have seen the result of ${first}.`,
      },
    };
  });
}

/** The observation's words when a role may not use a tool; the same wherever authority is checked. */
export function notAllowed(role: Role, toolName: string): string {
  return `Your role (${role}) is not allowed to use ${toolName}.`;
}

/** The tool's ask-the-user fields that `args` leaves empty. */
export function missingAskFields(tool: ToolDefinition, args: Record<string, unknown>): MissingField[] {
  const fields = Object.entries(tool.askUser ?? {}) as Array<
    [string, { description: string; enum?: readonly string[] } | undefined]
  >;
  return fields.flatMap(([name, field]) =>
    field !== undefined && (args[name] === undefined || args[name] === null || args[name] === "")
      ? [{ name, description: field.description, ...(field.enum ? { enum: [...field.enum] } : {}) }]
      : [],
  );
}

/** Zod issues as one correctable sentence for the model or the user. */
export function describeIssues(toolName: string, error: z.ZodError): string {
  return `Invalid arguments for ${toolName}: ${formatZodIssues(error, { root: "(args)" })}.`;
}
