import type { App } from "../../app/assemble.js";
import { kubernetesSection } from "../../service/incidents/kubernetes-briefing.js";
import { runbookSections, type IncidentBriefing } from "../../service/incidents/briefing.js";
import { createIncidentWorker, type IncidentWorker } from "../../service/incidents/worker.js";
import { createIncidents } from "../../service/incidents/incidents.js";
import type { Logger } from "../../service/observability/logger.js";
import { pastConclusions, pastIncidentsText } from "../../service/incidents/past-incidents.js";
import type { AlertIntake } from "./routes.js";

/** Alert intake over an assembled app, with the worker that runs its investigations. */
export interface RunningIntake {
  /** What `createServer` mounts. */
  alerts: AlertIntake;
  worker: IncidentWorker;
}

/**
 * Starts alert intake on an app: investigations run as `OPSPILOT_ALERT_USER`, Alertmanager's token
 * is `OPSPILOT_ALERT_TOKEN` and PagerDuty's signing secret `OPSPILOT_PAGERDUTY_SECRET` (each route is
 * off without its own). The worker first recovers what a dead process left; close it before the app.
 */
export function startAlertIntake(app: App, logger: Logger, sweepMs?: number): RunningIntake {
  const user = app.env.OPSPILOT_ALERT_USER;
  const worker = createIncidentWorker({
    runtime: app.runtime,
    storage: app.storage,
    graph: app.graph,
    user,
    logger,
    sweepMs,
  });
  void worker.kick();
  const incidents = createIncidents({
    storage: app.storage,
    worker,
    user,
    briefing: briefingOf(app, logger),
  });
  const secret = app.env.OPSPILOT_PAGERDUTY_SECRET;
  const alerts: AlertIntake = {
    incidents,
    token: app.env.OPSPILOT_ALERT_TOKEN,
    ...(secret ? { pagerduty: { secret, deliveries: app.storage.incidents } } : {}),
  };
  return { alerts, worker };
}

/**
 * What a new incident's first message gets after the alert: the runbooks whose front matter
 * lists it, then what the last incidents like it concluded. A store that fails costs only its
 * section (logged).
 */
function briefingOf(app: App, logger: Logger): IncidentBriefing {
  return async ({ incidentId, alertname, labels }) => {
    const past = await pastConclusions(app.store, { alertname, labels, excludeIncidentId: incidentId }).catch(
      (error: unknown) => {
        logger.error("past incidents could not be read", error);
        return [];
      },
    );
    const pastText = pastIncidentsText(past);
    const kubernetes = await kubernetesSection(app.registry, labels).catch(() => []);
    return [
      ...runbookSections(app.runbooks?.forAlert(alertname) ?? []),
      ...kubernetes,
      ...(pastText ? [pastText] : []),
    ];
  };
}
