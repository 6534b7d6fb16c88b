import { readThread } from "../runtime/read-thread.js";
import { randomUUID } from "node:crypto";
import { AIMessage } from "@langchain/core/messages";
import type { OpsPilotGraph } from "../../agent/graph.js";
import { ThreadBusyError, ThreadPausedError, ThreadUnfinishedError } from "../../contracts/errors.js";
import { deliveredMessageId } from "../../contracts/delivered-message.js";
import type { StreamEvent } from "../../contracts/events.js";
import type { RunUser } from "../../contracts/user.js";
import type { IncidentMessage, Storage } from "../../storage/types.js";
import { followedRuns } from "../events/followed-runs.js";
import type { Logger } from "../observability/logger.js";
import { MessageAlreadyPostedError } from "../queue/queued-plan.js";
import type { Runtime } from "../runtime/runtime.js";

/** What delivers incidents' waiting messages to their threads. */
export interface IncidentWorkerOptions {
  runtime: Runtime;
  storage: Storage;
  /** The compiled graph, to record notes (a resolution) in a thread without a run. */
  graph: OpsPilotGraph;
  /** Who the investigations run as. */
  user: RunUser;
  logger: Logger;
}

/** Delivers waiting incident messages; `kick` after queueing one, `close` before the runtime closes. */
export interface IncidentWorker {
  /** Delivers what waits now (and, the first time, recovers runs a dead process left unfinished); failures are logged. */
  kick(): Promise<void>;
  /** The same pass for the `incidents` job, which retries what busy or paused threads held back; rejects when it failed. */
  sweep(): Promise<void>;
  /** Resolves once every run this worker started has ended. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Delivers messages in order, one pass at a time: a thread takes its next message only when it is
 * idle, so a follow-up that arrives during a run waits (stored) and runs after it. A message is
 * marked delivered once its run holds the thread; a process that dies after that leaves the run
 * unfinished, and the next process recovers it like any other thread. Each message goes in with
 * an id of its own, so two processes that read it waiting run it once.
 */
export function createIncidentWorker(options: IncidentWorkerOptions): IncidentWorker {
  const { runtime, storage, graph, user, logger } = options;
  const runs = followedRuns(logger);
  let pass: Promise<void> = Promise.resolve();
  let closed = false;
  let recovered = false;

  /** Reads a run's events to the end, then looks for the thread's next message. */
  function follow(events: AsyncIterable<StreamEvent>): void {
    runs.follow(events, "incident run failed", () => {
      if (!closed) void kick();
    });
  }

  async function recoverUnfinished(): Promise<void> {
    for (const incident of await storage.incidents.listIncidents(10_000)) {
      if ((await readThread(graph, incident.threadId)).standing.kind !== "unfinished") continue;
      // Another process sharing the database may be recovering it already.
      await runtime.recoverRun(incident.threadId, user).then(follow, (error: unknown) => {
        if (!(error instanceof ThreadBusyError)) logger.error("incident run not recovered", error);
      });
    }
  }

  async function addNote(message: IncidentMessage): Promise<boolean> {
    const config = { configurable: { thread_id: message.threadId } };
    if (
      (await readThread(graph, message.threadId)).standing.kind !== "idle" ||
      (await storage.leaseHolder(message.threadId))
    )
      return false;
    await graph.updateState(
      config,
      { messages: [new AIMessage({ id: randomUUID(), content: message.message })] },
      "call_model",
    );
    return true;
  }

  async function deliver(message: IncidentMessage): Promise<void> {
    try {
      if (message.kind === "note") {
        if (await addNote(message)) await storage.incidents.finishIncidentMessage(message.incidentId, message.seq);
        return;
      }
      // The message's own id: a process that read the same waiting message runs it only while the thread lacks it.
      const events = await runtime.startRun({
        threadId: message.threadId,
        message: message.message,
        user,
        messageId: deliveredMessageId(message.incidentId, message.seq),
      });
      await storage.incidents.finishIncidentMessage(message.incidentId, message.seq);
      follow(events);
    } catch (error) {
      // Another process ran it already; a busy or paused thread keeps it for later; an unfinished one is recovered first.
      if (error instanceof MessageAlreadyPostedError)
        await storage.incidents.finishIncidentMessage(message.incidentId, message.seq);
      else if (error instanceof ThreadUnfinishedError) follow(await runtime.recoverRun(message.threadId, user));
      else if (!(error instanceof ThreadBusyError || error instanceof ThreadPausedError)) throw error;
    }
  }

  async function sweep(): Promise<void> {
    if (!recovered) {
      recovered = true;
      await recoverUnfinished();
    }
    const taken = new Set<string>();
    for (const message of await storage.incidents.pendingIncidentMessages()) {
      if (closed) return;
      // One message per thread per pass: the next waits for the run this one starts.
      if (taken.has(message.threadId)) continue;
      taken.add(message.threadId);
      await deliver(message).catch((error: unknown) => logger.error("incident message not delivered", error));
    }
  }

  /** Passes never overlap; a failed one is the caller's to report, and the next pass goes on. */
  function queuePass(): Promise<void> {
    const next = pass.then(sweep);
    pass = next.catch(() => undefined);
    return next;
  }

  function kick(): Promise<void> {
    return queuePass().catch((error: unknown) => logger.error("incident sweep failed", error));
  }

  return {
    kick,
    sweep: queuePass,
    async idle() {
      while (runs.size > 0) {
        await runs.idle();
        await pass;
      }
    },
    async close() {
      closed = true;
      await pass;
    },
  };
}
