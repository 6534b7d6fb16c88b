import type { RunEvent } from "../../contracts/events.js";
import type { StopReason } from "../../contracts/stop-reasons.js";
import type { IncidentLogStore, IncidentRow, IncidentStore } from "../../storage/types.js";
import { logNotice } from "./notice-log.js";
import {
  answerSummary,
  incidentNotice,
  incidentWebhookBody,
  pauseSummary,
  resolvedNotice,
  type IncidentNotice,
  type IncidentWebhookFormat,
} from "./notice-body.js";
import { silenceOf } from "./silence-marks.js";
import { incidentIdOfThread } from "./incidents.js";
import type { Logger } from "../observability/logger.js";
import { createWebhookDelivery, WEBHOOK_CLOSE_GRACE_MS, type WebhookRetries } from "../notices/webhook-delivery.js";

/** A run on an incident's thread that ended, as the `onAnswer` hook is told of it. */
export interface IncidentAnswer {
  /** The incident as stored when the run ended. */
  incident: IncidentRow;
  threadId: string;
  runId: string;
  /** Why the run ended: `final_answer`, or a limit, a cancel or an error (never `interrupted`). */
  stopReason: StopReason;
  /** The run's final assistant text, whole, as the recorded events hold it (masked); empty when it left none. */
  answer: string;
  /** Epoch ms the run's end was seen. */
  at: number;
  /** The thread's recorded events up to the run's end (masked), every run's: what the diagnosis is read from. */
  events: RunEvent[];
}

/** Where incident notices go. */
export interface IncidentWebhook extends WebhookRetries {
  /** The http(s) URL each notice is POSTed to. */
  url: string;
  /** Shape of the body (generic JSON by default). */
  format?: IncidentWebhookFormat;
  /** Base URL of the web page, for the thread link. */
  publicUrl: string;
}

/** What the reporter reads and where it reports. */
export interface IncidentReportsOptions {
  /** The incidents, and the recorded events a notice is checked against and summarised from. */
  storage: {
    /** `setIncidentSilence`, when given, records the silences an incident's thread made (`silence-marks.ts`). */
    incidents: Pick<IncidentStore, "getIncident"> & Partial<Pick<IncidentStore, "setIncidentSilence">>;
    eventsAfter(threadId: string, afterSeq: number): Promise<RunEvent[]>;
    /** Where each notice sent (or given up) is logged for the incident's timeline. */
    incidentLog?: Pick<IncidentLogStore, "appendIncidentLog">;
  };
  /** Receives notices given up and hooks that failed. */
  logger: Logger;
  /** Where to POST a notice of each answer and pause; none: no notices. */
  webhook?: IncidentWebhook;
  /** Told once of each run of an incident's thread that ended (not paused); a failure is logged, never thrown. */
  onAnswer?: (report: IncidentAnswer) => void | Promise<void>;
}

/** Reports the runs of incident threads; `observe` returns at once and never throws. */
export interface IncidentReports {
  /** Sees every recorded event (the runtime's `onEvent`); acts on the run ends and pauses of incident threads. */
  observe(event: RunEvent): void;
  /** POSTs the notice of a resolved incident in the background (none without a webhook); never throws. */
  resolved(incident: IncidentRow): void;
  /** Resolves once every report started so far was made or given up. */
  idle(): Promise<void>;
  /** Waits up to `graceMs` for the reports under way, then abandons the rest (logged); later events are ignored. */
  close(graceMs?: number): Promise<void>;
}

/** Run ends and pauses kept in memory to skip a second report at once. */
const REMEMBERED_REPORTS = 1_000;

type Reported = Extract<RunEvent, { type: "loop_interrupt" | "run_finished" }>;

/**
 * Reports what the runs of incident threads come to, whoever started them (the incident worker,
 * or a person answering a pause from any process): each run end (`answered`) and each pause
 * (`paused`) is POSTed to the webhook in the background, and each run end is handed to `onAnswer`.
 * A thread is an incident's when its id names an incident whose row holds that thread. Each run
 * end and pause is reported once: one this process saw already, or one recorded earlier in the
 * thread's events (a recovered run records it again), is skipped.
 */
export function createIncidentReports(options: IncidentReportsOptions): IncidentReports {
  const { storage, logger, webhook, onAnswer } = options;
  const delivery = createWebhookDelivery({ ...webhook, logger, target: "incident notices" });
  const seen = new Set<string>();
  // Pauses matter only to the webhook; run ends also to the hook.
  const wanted = { pauses: webhook !== undefined, ends: webhook !== undefined || onAnswer !== undefined };

  function remember(key: string): boolean {
    if (seen.has(key)) return false;
    seen.add(key);
    // Only recent keys matter here (the recorded events cover the rest): the set stays small.
    if (seen.size > REMEMBERED_REPORTS) seen.delete(seen.values().next().value!);
    return true;
  }

  async function report(event: Reported, incidentId: string, at: number): Promise<void> {
    const incident = await storage.incidents.getIncident(incidentId);
    if (!incident || incident.threadId !== event.threadId) return;
    const recorded = await storage.eventsAfter(event.threadId, 0);
    if (recorded.some((earlier) => earlier.seq < event.seq && sameReport(earlier, event))) return;
    if (event.type === "loop_interrupt") {
      await send({
        incident,
        runId: event.runId,
        event: "paused",
        stopReason: "interrupted",
        summary: pauseSummary(event),
      });
      return;
    }
    const answer = finalAnswer(recorded, event);
    const events = recorded.filter((earlier) => earlier.seq <= event.seq);
    await Promise.all([
      tell({
        incident,
        threadId: event.threadId,
        runId: event.runId,
        stopReason: event.stopReason,
        answer,
        at,
        events,
      }),
      send({
        incident,
        runId: event.runId,
        event: "answered",
        stopReason: event.stopReason,
        summary: answerSummary(answer),
      }),
    ]);
  }

  async function send(what: Omit<Parameters<typeof incidentNotice>[0], "publicUrl">): Promise<void> {
    if (webhook) await post(incidentNotice({ ...what, publicUrl: webhook.publicUrl }));
  }

  async function post(notice: IncidentNotice): Promise<void> {
    if (!webhook) return;
    const what =
      notice.event === "resolved"
        ? "resolution"
        : `${notice.event === "paused" ? "pause" : "answer"} of run ${notice.runId}`;
    // Logged once per outage of the target (and once when it recovers), not once per notice.
    const outcome = await delivery.post(
      webhook.url,
      incidentWebhookBody(notice, webhook.format ?? "json"),
      (failure) => `incident webhook: could not announce the ${what} of incident ${notice.incidentId} (${failure})`,
    );
    await logNotice(storage.incidentLog, { notice, channel: webhook.format ?? "json", outcome }).catch(
      (error: unknown) => logger.error("incident notice not logged", error),
    );
  }

  /** Records the silence an incident's thread made, so the incident shows silenced and is reconciled at once. */
  async function markSilence(event: Extract<RunEvent, { type: "tool_result" }>, incidentId: string): Promise<void> {
    const silence = silenceOf(event, Date.now());
    const incident = silence && (await storage.incidents.getIncident(incidentId));
    if (silence && incident?.threadId === event.threadId)
      await storage.incidents.setIncidentSilence?.(incidentId, silence);
  }

  async function tell(answer: IncidentAnswer): Promise<void> {
    if (!onAnswer) return;
    const about = `run ${answer.runId} of incident ${answer.incident.incidentId}`;
    try {
      // A closing process stops waiting for a hook that hangs, as it does for a receiver.
      if ((await untilAborted(Promise.resolve(onAnswer(answer)), delivery.signal)) === "aborted")
        logger.error(`the incident answer hook did not finish for ${about} before the process closed`);
    } catch (error) {
      logger.error(`the incident answer hook failed for ${about}`, error);
    }
  }

  return {
    observe(event) {
      try {
        if (event.type === "tool_result" && !delivery.closed) {
          const incidentId = incidentIdOfThread(event.threadId);
          if (incidentId) delivery.run("incident silence not recorded", () => markSilence(event, incidentId));
          return;
        }
        if (delivery.closed || (event.type !== "loop_interrupt" && event.type !== "run_finished")) return;
        // The thread's name first: every event of every run passes here, and most threads are no incident's.
        const incidentId = incidentIdOfThread(event.threadId);
        const key = incidentId && reportKey(event, wanted);
        if (!incidentId || !key || !remember(key)) return;
        const at = Date.now();
        delivery.run("incident report failed", () => report(event, incidentId, at));
      } catch (error) {
        logger.error("incident report failed", error);
      }
    },
    resolved(incident) {
      if (!webhook || delivery.closed) return;
      delivery.run("incident resolution notice failed", () => post(resolvedNotice(incident, webhook.publicUrl)));
    },
    idle: () => delivery.idle(),
    close: (graceMs = WEBHOOK_CLOSE_GRACE_MS) => delivery.close(graceMs),
  };
}

/** What identifies an event worth a report: a pause by its id, a run's end (not a pause) by its run. */
function reportKey(event: Reported, wanted: { pauses: boolean; ends: boolean }): string | undefined {
  if (event.type === "loop_interrupt" && wanted.pauses) return `pause\n${event.threadId}\n${event.interruptId}`;
  if (event.type === "run_finished" && event.stopReason !== "interrupted" && wanted.ends)
    return `end\n${event.threadId}\n${event.runId}`;
  return undefined;
}

/** Whether `earlier` is the same pause, or the same run's end, recorded before. */
function sameReport(earlier: RunEvent, event: Reported): boolean {
  if (event.type === "loop_interrupt")
    return earlier.type === "loop_interrupt" && earlier.interruptId === event.interruptId;
  return earlier.type === "run_finished" && earlier.runId === event.runId && earlier.stopReason !== "interrupted";
}

/** The last assistant text the run recorded before its end. */
function finalAnswer(recorded: readonly RunEvent[], end: Reported): string {
  const last = recorded.findLast(
    (event) => event.type === "assistant_message" && event.runId === end.runId && event.seq < end.seq,
  );
  return last?.type === "assistant_message" ? last.content : "";
}

/** Settles with `work`, or with "aborted" as soon as `signal` aborts. */
async function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | "aborted"> {
  if (signal.aborted) return "aborted";
  let stop: () => void = () => undefined;
  const aborted = new Promise<"aborted">((resolve) => {
    stop = () => resolve("aborted");
    signal.addEventListener("abort", stop, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    signal.removeEventListener("abort", stop);
  }
}
