import type { Language } from "../../contracts/language.js";
import type { AlertFacts } from "./incident/alert-text.js";
import type { SilenceRequest } from "./incident/silence.js";

/** What the user asked for, as far as the demo model understands it. */
export type IntentKind =
  "alert" | "silence" | "investigate" | "restart" | "rollback" | "metrics" | "docs" | "greeting" | "thanks" | "help";

/** The user's request, read once per model turn. */
export interface Intent {
  /** What is asked. */
  kind: IntentKind;
  /** Language of the request. */
  language: Language;
  /** Words naming the service, for `search_resource` (e.g. "支付", "payment"). */
  serviceQuery?: string;
  /** Environment, only when the user named one; otherwise the loop asks. */
  environment?: "prod" | "staging";
  /** Whether the user also wants the runbooks' advice. */
  wantsDocs: boolean;
  /** Query for `search_docs`. */
  docsQuery?: string;
  /** Version to roll back to, when named. */
  toVersion?: string;
  /** The alert to investigate (`alert`) or silence (`silence`: the thread's, when it has one). */
  alert?: AlertFacts;
  /** How long to silence, for `silence`. */
  silence?: SilenceRequest;
}
