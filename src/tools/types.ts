import type { z } from "zod";
import type { CallPreview } from "../contracts/pause/pause.js";
import type { Role, RunUser } from "../contracts/user.js";

/** A field the loop asks the user for when the model did not supply it. */
export interface AskField {
  /** Shown above the form field and sent to clients. */
  description: string;
  /** Allowed values, so a page can draw a select. */
  enum?: readonly string[];
}

/** What a tool receives besides its arguments. */
export interface ToolContext {
  /** Aborted on cancellation or timeout; long work must honour it. */
  signal: AbortSignal;
  /** `threadId:callId`: a write tool applies its effect at most once per key. */
  idempotencyKey: string;
  /** Thread the call belongs to. */
  threadId: string;
  /** Call id the model gave this invocation. */
  callId: string;
  /** Who asked. */
  user: RunUser;
  /** Who approved or edited the call in a pause, when a person's answer let it run (a write's `createdBy`). */
  approvedBy?: string;
  /** The cap on this call's observation text; a tool that pages (`read_result`) sizes its page to fit. */
  observationMaxChars?: number;
}

/**
 * Returned by a tool that discovers mid-run that it needs the user (deferred interrupt).
 * A write tool must ask before it applies any effect: the call runs again with the answer.
 */
export interface UserInputRequest {
  /** Marks the value as a request, not a result. */
  readonly kind: "needs_user";
  /** Why the tool needs the user, shown in the pause. */
  reason: string;
  /** Fields to ask for. */
  missing: Array<{ name: string } & AskField>;
}

/** Builds the value a tool returns to ask the user mid-run. */
export function requestUserInput(reason: string, missing: UserInputRequest["missing"]): UserInputRequest {
  return { kind: "needs_user", reason, missing };
}

/** Whether a tool's return value is a mid-run request for the user. */
export function isUserInputRequest(value: unknown): value is UserInputRequest {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "needs_user";
}

/** A tool's call budget, counted per minute in this process's memory. */
export interface ToolRateLimit {
  /** Calls per minute, all users together. */
  perMinute?: number;
  /** Calls per minute for each user. */
  perUserPerMinute?: number;
}

/**
 * Where each of a tool's `readOnly`, `risk`, `idempotent` and `egress` came from, in the words
 * `GET /api/tools` and `npm run ask -- --tools` show: `built-in`, `annotations` (a trusted
 * MCP server's), `untrusted server default`, or the config entry that set it (`config tools["k8s__*"]`).
 */
export type PolicySource = Record<"readOnly" | "risk" | "idempotent" | "egress", string>;

/** One tool, declared once: everything the loop needs to decide, run and show it (design §3). */
export interface ToolDefinition<Schema extends z.ZodObject = z.ZodObject> {
  /** snake_case name the model calls. */
  name: string;
  /** A prompt: when to use the tool and when not. */
  description: string;
  /** Arguments; every field `.describe()`d. */
  schema: Schema;
  /**
   * The JSON Schema the model is shown instead of one derived from `schema`: an MCP tool
   * keeps its server's own schema, which a zod round trip would reword.
   */
  parameters?: Record<string, unknown>;
  /** Read-only tools run in parallel; writes run one at a time after the reads. */
  readOnly: boolean;
  /** High-risk tools wait for the user's approval before they run. */
  risk: "low" | "high";
  /**
   * Sends data outside (chat, e-mail, tickets, webhooks, HTTP fetches with arguments): in a
   * thread that has read content from an untrusted source, every call waits for a person
   * (`confirm_risky`), whatever its risk. Absent: false.
   */
  egress?: boolean;
  /**
   * Its results cannot carry instructions (a source the team controls): reading them does not
   * taint the thread. Absent: false, so every result, runbook and MCP answer is untrusted.
   */
  trusted?: boolean;
  /** Fields asked from the user when the model leaves them out. */
  askUser?: Partial<Record<keyof z.infer<Schema> & string, AskField>>;
  /** Per-attempt time limit. */
  timeoutMs: number;
  /** Roles allowed to call the tool; omitted: every role for a read, operator and admin for a write (`effectiveRoles`). */
  roles?: readonly Role[];
  /**
   * A write whose effect does not repeat when it runs twice with the same idempotency key,
   * so the executor may retry it once after a timeout. Other writes are never retried.
   */
  idempotent?: boolean;
  /** Calls allowed per minute, checked before the call reaches the tool (`rate_limited`). */
  rateLimit?: ToolRateLimit;
  /**
   * What one call costs in the tool's own units (a paid API's credits, a ticket system's
   * quota): each attempt that reaches the tool spends them, summed per run in the records.
   */
  costUnits?: number;
  /** How long an approval of this tool's calls may wait before the call is answered `approval_expired`; never when absent. */
  approvalExpiresAfterMs?: number;
  /** How many distinct people must approve a call before it runs (four eyes); 1 when absent. */
  approvalsRequired?: number;
  /** Whether the user whose message started the run is kept from approving or editing its calls. */
  approvalsDistinctFromRequester?: boolean;
  /** Tools the model is pointed to when this one fails (only those the user may call and that are up). */
  fallback?: readonly string[];
  /** Where the tool comes from; MCP tools name their server, built-in tools leave it out. */
  source?: { server?: string };
  /** Where its `readOnly`, `risk`, `idempotent` and `egress` came from; omitted: all `built-in`. */
  policySource?: PolicySource;
  /**
   * The key facts of a successful result for working memory (design §2.10): a few short
   * lines (counts, ids, codes, states) that stay with the thread after the result itself no
   * longer fits a request. Deterministic and cheap; it receives the result masked. Tools
   * without one (MCP tools) get the default: counts, scalar fields and code-like ids.
   */
  summarize?(result: unknown): string[];
  /**
   * A write's dry run: what these args would change, with no effect (a Kubernetes `dryRun=All`).
   * `execute_tools` runs it for a call that waits for approval, before the pause, so the approver
   * sees it; a failure is shown as the preview's `error`, and the call waits all the same.
   */
  preview?(args: z.infer<Schema>, ctx: ToolContext): Promise<CallPreview>;
  /** Does the work. Throw `ToolError` for a classified failure. */
  run(args: z.infer<Schema>, ctx: ToolContext): Promise<unknown>;
}

/** Declares a tool with its argument type inferred from the schema. */
export function defineTool<Schema extends z.ZodObject>(definition: ToolDefinition<Schema>): ToolDefinition {
  return definition as unknown as ToolDefinition;
}
