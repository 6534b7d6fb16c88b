import type { App } from "../app/assemble.js";
import { createIncidentWorker, type IncidentWorker } from "../service/incident-worker.js";
import { createIncidents } from "../service/incidents.js";
import type { Logger } from "../service/logger.js";
import type { AlertIntake } from "./alert-routes.js";

/** Alert intake over an assembled app, with the worker that runs its investigations. */
export interface RunningIntake {
  /** What `createServer` mounts. */
  alerts: AlertIntake;
  worker: IncidentWorker;
}

/**
 * Starts alert intake on an app: investigations run as `OPSPILOT_ALERT_USER` and the token is
 * `OPSPILOT_ALERT_TOKEN`. The worker first recovers what a dead process left; close it before the app.
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
  const incidents = createIncidents({ storage: app.storage, worker, user });
  return { alerts: { incidents, token: app.env.OPSPILOT_ALERT_TOKEN }, worker };
}
