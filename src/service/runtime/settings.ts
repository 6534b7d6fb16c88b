import type { OpsPilotGraph } from "../../agent/graph.js";
import type { RunOptionsInput } from "../../graph/config.js";
import type { LimitPolicy } from "../../graph/limits.js";
import type { DailyQuotas } from "./quotas.js";
import type { Storage } from "../../storage/types.js";
import type { ToolRegistry } from "../../tools/registry.js";
import type { CurrentRoles } from "../../contracts/user.js";
import type { RunEvent } from "../../contracts/events.js";
import type { CancellationRegistry } from "./cancellation.js";
import type { Logger } from "../observability/logger.js";
import type { PauseEvent } from "../notices/pause-webhook-body.js";
import type { ApprovalExpiredNotice } from "../approvals/expiry-notice.js";

/** How a runtime behaves, whatever graph it drives: defaults, ceilings, quotas and where it reports. */
export interface RuntimeSettings {
  /** Defaults for every run's options. */
  defaults?: RunOptionsInput;
  /** Ceilings a run's own limits may not pass, and the profiles it may pick (none by default). */
  limits?: LimitPolicy;
  /** What each user may spend per UTC day (unlimited by default). */
  quotas?: DailyQuotas;
  /** Sees every recorded event of every run this runtime drives (metrics); answer fragments are not shown to it. */
  onEvent?: (event: RunEvent) => void;
  /** Told of each new pause once it is recorded (the pause webhook); must return at once. */
  onPause?: (event: PauseEvent) => void;
  /** Told of each pause this process expired (the expiry notice); must return at once. */
  onApprovalExpired?: (notice: ApprovalExpiredNotice) => void;
  /** Receives unexpected failures (stderr by default). */
  logger?: Logger;
  /** On close, how long running runs may go on before they are cancelled (0 by default). */
  shutdownGraceMs?: number;
  /**
   * The roles each user id holds now (a server's token table), so a resume is also judged by
   * what the thread's owner may do today; without it only the answering user's role is checked.
   */
  currentRoles?: CurrentRoles;
  /**
   * Keep every checkpoint of a thread, as LangGraph does (the default); false drops a thread's
   * older checkpoints once each run ends or pauses (`OPSPILOT_CHECKPOINTS=latest`).
   */
  keepHistory?: boolean;
  /**
   * Owners whose threads every operator and admin may read, post to and answer as if their own
   * (the alert user's incident threads); roles still decide which tools each may approve.
   */
  sharedOwners?: readonly string[];
}

/** What the runtime drives, and how. */
export interface RuntimeDeps extends RuntimeSettings {
  /** The graph compiled with a checkpointer shared by every process that serves these threads. */
  graph: OpsPilotGraph;
  /** The same tools the graph was built with (resume values are checked against them). */
  registry: ToolRegistry;
  storage: Storage;
  /** Must be the registry the graph was built with, so cancels reach its nodes. */
  cancellations: CancellationRegistry;
}
