import type { Language } from "../../../contracts/language.js";
import { alertInThread, type AlertFacts } from "./alert-text.js";
import type { Intent, IntentKind } from "../intent-types.js";

/** An alert's message: an investigation of the alert, whatever words its annotations or sections hold. */
export function alertIntent(alert: AlertFacts, language: Language): Intent {
  return {
    kind: "alert",
    language,
    alert,
    serviceQuery: alert.service,
    environment: alert.environment,
    wantsDocs: true,
    docsQuery: [alert.alertname, alert.service].filter(Boolean).join(" "),
  };
}

/** Requests about a service that, in an incident's thread, mean the alert's service when they name none. */
const ABOUT_A_SERVICE: ReadonlySet<IntentKind> = new Set(["investigate", "metrics", "restart", "rollback"]);

/**
 * The request read in its thread: a silence request gets the alert the thread announced
 * (the latest one; none when the thread has none), and a request about an unnamed service
 * ("restart it", "看看日志") in an incident's thread is about the alert's service.
 */
export function inIncident(intent: Intent, earlier: readonly string[]): Intent {
  if (intent.kind === "silence") {
    const alert = alertInThread(earlier);
    return alert ? { ...intent, alert } : intent;
  }
  if (!ABOUT_A_SERVICE.has(intent.kind) || intent.serviceQuery) return intent;
  const service = alertInThread(earlier)?.service;
  return service ? { ...intent, serviceQuery: service, docsQuery: intent.docsQuery ?? service } : intent;
}
