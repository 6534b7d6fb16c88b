import type { Intent } from "./intent.js";
import { serviceOf } from "./data.js";
import { alertCalls, silenceCalls } from "./incident/incident-plan.js";
import type { ProposedCall } from "./proposed-call.js";
import { lastObservation, wasCalled, type Turn } from "./turn.js";

export type { ProposedCall } from "./proposed-call.js";

/** The write (or metrics) tool each service action ends with. */
export const ACTION_TOOL = {
  restart: "restart_service",
  rollback: "rollback_deploy",
  metrics: "get_service_metrics",
} as const;

/**
 * The next calls for the request, from what the turn has already observed: calls that
 * do not depend on each other are proposed together; a call that needs a service id
 * waits for the resource search. Returns no calls when it is time to answer (done,
 * or nothing more can be learned with the bound tools).
 */
export function planNextCalls(turn: Turn, intent: Intent, boundTools: ReadonlySet<string>): ProposedCall[] {
  const wanted = wantedCalls(turn, intent, boundTools);
  return wanted.filter((call) => boundTools.has(call.name) && !wasCalled(turn, call.name));
}

function wantedCalls(turn: Turn, intent: Intent, boundTools: ReadonlySet<string>): ProposedCall[] {
  const environment = intent.environment ? { environment: intent.environment } : {};
  const service = serviceOf(lastObservation(turn, "search_resource"))?.id;
  const calls: ProposedCall[] = [];
  const findService = () => {
    if (intent.serviceQuery) calls.push({ name: "search_resource", args: { query: intent.serviceQuery } });
  };

  switch (intent.kind) {
    case "alert":
      return alertCalls(turn, intent, boundTools);
    case "silence":
      return silenceCalls(turn, intent, boundTools);
    case "investigate":
      findService();
      if (intent.wantsDocs && intent.docsQuery) calls.push({ name: "search_docs", args: { query: intent.docsQuery } });
      if (service) calls.push({ name: "search_logs", args: { service, level: "ERROR", ...environment } });
      return calls;
    case "restart":
    case "rollback":
    case "metrics": {
      findService();
      const version = intent.kind === "rollback" && intent.toVersion ? { toVersion: intent.toVersion } : {};
      if (service) calls.push({ name: ACTION_TOOL[intent.kind], args: { service, ...environment, ...version } });
      return calls;
    }
    case "docs":
      if (intent.docsQuery) calls.push({ name: "search_docs", args: { query: intent.docsQuery } });
      return calls;
    case "greeting":
    case "thanks":
    case "help":
      return calls;
    default: {
      const _exhaustive: never = intent.kind;
      return _exhaustive;
    }
  }
}
