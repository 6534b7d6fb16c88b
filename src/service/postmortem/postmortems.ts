import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { Storage, StoredPostmortem } from "../../storage/types.js";
import type { Logger } from "../observability/logger.js";
import { conclusions, readEvidence, readIncidentRecords, type RecordsStorage } from "./incident-records.js";
import { writeNarrative } from "./narrative.js";
import { assemblePostmortem } from "./postmortem-draft.js";
import { buildTimeline } from "./timeline.js";
import type { IncidentTimeline } from "./timeline-entry.js";

/** What timelines and postmortem drafts are built from. */
export interface PostmortemsOptions {
  storage: RecordsStorage & Pick<Storage, "incidentLog">;
  /** The model that writes the narrative; none (the demo model): drafts are assembled from the records only. */
  narrator?: BaseChatModel;
  /** Base URL of the page, for links to calls' results; none: links relative to the page. */
  publicUrl?: string;
  logger: Logger;
}

/** Incidents' timelines and postmortem drafts. */
export interface Postmortems {
  /** The incident's timeline; undefined for an unknown incident. */
  timeline(incidentId: string): Promise<IncidentTimeline | undefined>;
  /** The stored draft when nothing was recorded after it, else a new one (stored); undefined for an unknown incident. */
  draft(incidentId: string): Promise<StoredPostmortem | undefined>;
  /** Writes a new draft and stores it; undefined for an unknown incident. */
  write(incidentId: string): Promise<StoredPostmortem | undefined>;
  /** Writes the draft of an incident that resolved, in the background (failures are logged); returns at once. */
  onResolved(incidentId: string): void;
  /** Resolves once every draft started by `onResolved` is written or given up. */
  idle(): Promise<void>;
}

/** The draft link of a call: the page opens the thread and the call's result (`#call-<id>`). */
export function callLink(publicUrl: string | undefined, threadId: string, callId: string): string {
  return `${publicUrl ?? ""}?thread=${encodeURIComponent(threadId)}#call-${encodeURIComponent(callId)}`;
}

/**
 * Timelines and postmortem drafts over the records. With a narrator, the model writes the summary
 * and findings and the draft marks each number or name in them that no tool result or record
 * holds; without one the whole draft is assembled from the records.
 */
export function createPostmortems(options: PostmortemsOptions): Postmortems {
  const { storage, narrator, publicUrl, logger } = options;
  const background = new Set<Promise<void>>();

  async function timeline(incidentId: string): Promise<IncidentTimeline | undefined> {
    const records = await readIncidentRecords(storage, incidentId);
    return records && buildTimeline(records);
  }

  async function write(incidentId: string): Promise<StoredPostmortem | undefined> {
    const records = await readIncidentRecords(storage, incidentId);
    if (!records) return undefined;
    const built = buildTimeline(records);
    const evidence = await readEvidence(storage, records);
    const concluded = conclusions(records);
    let narrative: string | undefined;
    let narrativeFailure: string | undefined;
    if (narrator) {
      try {
        narrative =
          (await writeNarrative(narrator, { timeline: built, evidence, conclusions: concluded.map((c) => c.text) })) ||
          undefined;
        if (!narrative) narrativeFailure = "its reply was empty";
      } catch (error) {
        logger.error(`the model could not write the postmortem narrative of incident ${incidentId}`, error);
        narrativeFailure = "the model call failed";
      }
    }
    const writtenAt = Date.now();
    const draft = assemblePostmortem({
      timeline: built,
      evidence,
      conclusions: concluded,
      ...(narrative ? { narrative } : {}),
      ...(narrativeFailure ? { narrativeFailure } : {}),
      link: (callId) => callLink(publicUrl, built.threadId, callId),
      writtenAt,
    });
    const stored: StoredPostmortem = {
      incidentId,
      markdown: draft.markdown,
      writtenAt,
      writtenBy: narrative ? "model" : "records",
    };
    await storage.incidentLog.savePostmortem(stored);
    return stored;
  }

  return {
    timeline,
    write,
    async draft(incidentId) {
      const [stored, current] = await Promise.all([storage.incidentLog.postmortem(incidentId), timeline(incidentId)]);
      if (!current) return undefined;
      const latest = Math.max(0, ...current.entries.map((entry) => Date.parse(entry.at)));
      return stored && stored.writtenAt >= latest ? stored : write(incidentId);
    },
    onResolved(incidentId) {
      const run: Promise<void> = write(incidentId)
        .then(() => undefined)
        .catch((error: unknown) =>
          logger.error(`the postmortem draft of incident ${incidentId} was not written`, error),
        )
        .finally(() => background.delete(run));
      background.add(run);
    },
    async idle() {
      while (background.size > 0) await Promise.all([...background]);
    },
  };
}
