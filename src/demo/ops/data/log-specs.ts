import { PAYMENT_INCIDENT } from "./payment-incident-logs.js";
import { SERVICE_LOGS } from "./service-logs.js";
import type { EnvironmentId, LogLevel } from "./types.js";

/** A batch of log lines of one kind: `count` lines spread over the last `withinHours` hours. */
export interface LogSpec {
  /** Service id. */
  service: string;
  /** Environment id. */
  environment: EnvironmentId;
  /** Severity of every line in the batch. */
  level: LogLevel;
  /** Error code of every line, or null. */
  code: string | null;
  /** Exact number of lines. */
  count: number;
  /** Lines are spread between `minSecondsAgo` and this many hours ago. */
  withinHours: number;
  /** Age of the youngest line, exactly; otherwise every line is placed at random, at least 60 s old. */
  minSecondsAgo?: number;
  /** Message templates used in turn; `{ms}`, `{order}`, `{channel}`, `{sku}`, `{n}` are filled in. */
  messages: readonly string[];
}

/** Every batch of the dataset's log lines. */
export const LOG_SPECS: readonly LogSpec[] = [...PAYMENT_INCIDENT, ...SERVICE_LOGS];
