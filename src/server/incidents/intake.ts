import type { App } from "../../app/assemble.js";
import { kubernetesSection } from "../../service/incidents/kubernetes-briefing.js";
import { logQuerySections, runbookSections, type IncidentBriefing } from "../../service/incidents/briefing.js";
import type { IncidentWorker } from "../../service/incidents/worker.js";
import { createIncidents } from "../../service/incidents/incidents.js";
import type { Logger } from "../../service/observability/logger.js";
import { pastConclusions, pastIncidentsText } from "../../service/incidents/past-incidents.js";
import { alertLogCalls } from "../../tools/toolsets/alert-log-queries.js";
import type { AlertIntake } from "./routes.js";

/** Alert intake over an assembled app, with the worker that runs its investigations. */
export interface RunningIntake {
  /** What `createServer` mounts. */
  alerts: AlertIntake;
  /** The app's incident worker (its `incidents` job sweeps while the app is started). */
  worker: IncidentWorker;
}

/**
 * Starts alert intake on an app: investigations run as `OPSPILOT_ALERT_USER`, Alertmanager's token
 * is `OPSPILOT_ALERT_TOKEN` and PagerDuty's signing secret `OPSPILOT_PAGERDUTY_SECRET` (each route is
 * off without its own). The app's incident worker runs them: its `incidents` job first recovers what
 * a dead process left, then retries what busy threads held back, once the app is started.
 */
export function startAlertIntake(app: App, logger: Logger): RunningIntake {
  const user = app.env.OPSPILOT_ALERT_USER;
  const worker = app.incidentWorker;
  const incidents = createIncidents({
    storage: app.storage,
    worker,
    user,
    briefing: briefingOf(app, logger),
    onDelivery: (incidentId, outcome) => app.writeBack.delivered(incidentId, outcome),
    onResolved: app.announceResolved,
  });
  const secret = app.env.OPSPILOT_PAGERDUTY_SECRET;
  const alerts: AlertIntake = {
    incidents,
    postmortems: app.postmortems,
    token: app.env.OPSPILOT_ALERT_TOKEN,
    ...(secret ? { pagerduty: { secret, deliveries: app.storage.incidents } } : {}),
  };
  return { alerts, worker };
}

/**
 * What a new incident's first message gets after the alert: the runbooks whose front matter
 * lists it, the log query its labels give, then what the last incidents like it concluded. A store
 * that fails costs only its section (logged).
 */
function briefingOf(app: App, logger: Logger): IncidentBriefing {
  return async ({ incidentId, alertname, labels, startsAt }) => {
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
      ...logQuerySections(alertLogCalls(app.config.toolsets ?? {}, { labels, startsAt })),
      ...(pastText ? [pastText] : []),
    ];
  };
}
