import { createHash } from "node:crypto";
import { ENVIRONMENTS } from "./environments.js";
import { ERROR_CODE_MEANINGS } from "./error-codes.js";
import { LOGS } from "./logs.js";
import { METRICS } from "./metrics.js";
import { RUNBOOKS } from "./runbooks.js";
import { SERVICES } from "./services.js";

export * from "./types.js";
export { ENVIRONMENTS, ERROR_CODE_MEANINGS, LOGS, METRICS, RUNBOOKS, SERVICES };

/** The whole embedded demo dataset. */
export const DATASET = {
  services: SERVICES,
  environments: ENVIRONMENTS,
  runbooks: RUNBOOKS,
  logs: LOGS,
  metrics: METRICS,
} as const;

/** Digest of the dataset: a store reloads its search tables once whenever the data changes. */
export const DATASET_VERSION = createHash("sha256")
  .update(JSON.stringify({ ...DATASET, errorCodes: ERROR_CODE_MEANINGS }))
  .digest("hex")
  .slice(0, 16);
