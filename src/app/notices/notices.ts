import type { BaseStore } from "@langchain/langgraph";
import type { Env } from "../../config/env.js";
import type { RunEvent } from "../../contracts/events.js";
import type { IncidentAnswer } from "../../service/incidents/reports.js";
import type { Logger } from "../../service/observability/logger.js";
import type { IncidentRow, Storage } from "../../storage/types.js";
import type { ToolRegistry } from "../../tools/registry.js";
import { expiryWebhookOf, incidentReportsOf, pauseWebhookOf, writeBackOf } from "./notifiers.js";
import type { Postmortems } from "./postmortems.js";
import type { WriteBackFailure } from "../../service/observability/write-back-failures.js";

/** What the app's notices need. */
export interface NoticeParts {
  storage: Storage;
  store: BaseStore;
  logger: Logger;
  registry: ToolRegistry;
  postmortems: Postmortems;
  onIncidentAnswer?: (report: IncidentAnswer) => void | Promise<void>;
  /** Told of each Slack update or PagerDuty note given up after its retries (the metrics); must return at once. */
  onWriteBackFailure?: (failure: WriteBackFailure) => void;
}

/**
 * Every notice the app sends: pauses, expired approvals, incident reports, and the write-back to
 * Slack threads and PagerDuty notes. A resolved incident sends its notice (linking the
 * postmortem) and has its draft written; one the reconciliation resolved also ends its Slack thread.
 */
export function noticesOf(env: Env, parts: NoticeParts) {
  const { storage, logger, registry } = parts;
  const pauseWebhook = pauseWebhookOf(env, storage, logger);
  const expiryWebhook = expiryWebhookOf(env, logger);
  const writeBack = writeBackOf(env, { storage, logger, registry, onFailure: parts.onWriteBackFailure });
  const incidentReports = incidentReportsOf(env, {
    ...{ storage, store: parts.store, logger, registry },
    onAnswer: parts.onIncidentAnswer,
  });
  const announceResolved = (incident: IncidentRow): void => {
    incidentReports.resolved(incident);
    parts.postmortems.onResolved(incident.incidentId);
  };
  return {
    pauseWebhook,
    expiryWebhook,
    writeBack,
    announceResolved,
    /** An incident the reconciliation with Alertmanager resolved. */
    reconciled(incident: IncidentRow): void {
      announceResolved(incident);
      writeBack.delivered(incident.incidentId, "resolved");
    },
    /** Told of every run event (incident reports, Slack threads). */
    observe(event: RunEvent): void {
      incidentReports.observe(event);
      writeBack.observe(event);
    },
    /** Lets the notices in flight end (before the storage closes: they check recorded events). */
    async close(): Promise<void> {
      await Promise.all([pauseWebhook?.close(), expiryWebhook?.close(), incidentReports.close(), writeBack.close()]);
    },
  };
}

/** The app's notices, as `noticesOf` builds them. */
export type Notices = ReturnType<typeof noticesOf>;
