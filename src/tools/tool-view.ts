import type { ObservationSource } from "../contracts/observation.js";
import type { MissingField } from "../contracts/pause/pause.js";
import type { Role } from "../contracts/user.js";
import { policySourceOf } from "./policy.js";
import { effectiveRoles, roleAllows, type ToolRegistry } from "./registry.js";
import type { AskField, PolicySource, ToolRateLimit } from "./types.js";

/** A tool's effective policy, as `GET /api/tools` and `npm run ask -- --tools` show it. */
export interface ToolView {
  /** Name the model calls. */
  name: string;
  /** The tool's prompt. */
  description: string;
  /** Reads run in parallel; writes one at a time. */
  readOnly: boolean;
  /** High-risk calls wait for approval. */
  risk: "low" | "high";
  /** Roles allowed to call it, as enforced: null means every role (a read that names none); a write that names none: operator and admin. */
  roles: Role[] | null;
  /** Fields asked from the user when the model leaves them out. */
  askUser: MissingField[];
  /** Per-attempt time limit. */
  timeoutMs: number;
  /** A write retried once after a timeout. */
  idempotent: boolean;
  /** Sends data outside: after the thread read untrusted content, each call waits for a person. */
  egress: boolean;
  /** Its results do not taint the thread. */
  trusted: boolean;
  /**
   * Where `readOnly`, `risk`, `idempotent` and `egress` each came from: `built-in`, `annotations` (a
   * trusted MCP server's), `untrusted server default`, or `config tools["<key>"]`.
   */
  policySource: PolicySource;
  /** Calls allowed per minute, when limited. */
  rateLimit: ToolRateLimit | null;
  /** Tools pointed to when this one fails. */
  fallback: string[];
  /** The tool and, for MCP tools, its server. */
  source: ObservationSource;
  /** Whether the model is offered it now (false while its server is down). */
  available: boolean;
  /** Why it is unavailable. */
  unavailableReason?: string;
}

/** The tools `role` may call, with their effective policy, in registration order; every tool without a role. */
export function toolViews(registry: ToolRegistry, role?: Role): ToolView[] {
  return registry
    .tools()
    .filter((tool) => role === undefined || roleAllows(tool, role))
    .map((tool) => {
      const reason = registry.unavailableReason(tool.name);
      const askUser = Object.entries(tool.askUser ?? {}) as Array<[string, AskField | undefined]>;
      const roles = effectiveRoles(tool);
      return {
        name: tool.name,
        description: tool.description,
        readOnly: tool.readOnly,
        risk: tool.risk,
        roles: roles ? [...roles] : null,
        askUser: askUser.flatMap(([name, field]) =>
          field ? [{ name, description: field.description, ...(field.enum ? { enum: [...field.enum] } : {}) }] : [],
        ),
        timeoutMs: tool.timeoutMs,
        idempotent: tool.idempotent === true,
        egress: tool.egress === true,
        trusted: tool.trusted === true,
        policySource: { ...policySourceOf(tool) },
        rateLimit: tool.rateLimit ? { ...tool.rateLimit } : null,
        fallback: [...(tool.fallback ?? [])],
        source: sourceOf(tool),
        available: reason === undefined,
        ...(reason !== undefined ? { unavailableReason: reason } : {}),
      };
    });
}

/** The source an observation of `tool` names. */
export function sourceOf(tool: { name: string; source?: { server?: string } }): ObservationSource {
  return tool.source?.server !== undefined ? { tool: tool.name, server: tool.source.server } : { tool: tool.name };
}
