/**
 * The demo: an offline chat model and an embedded operations estate (services, logs, metrics,
 * runbooks) with the tools over it, enough for the README's tour. Only the app wires it
 * (`src/app/`), and the evaluation runs its scenarios on its dataset; `eslint.config.js` keeps
 * every other room out. New features are tested with the scripted model, not taught to the demo.
 */
export { DemoChatModel } from "./model/demo-model.js";
export { OpsStore, type OpsStoreOptions } from "./ops/store.js";
export { PostgresLedger } from "./ops/postgres-ledger.js";
export type { ActionFilter, ActionRecord, EstateLedger } from "./ops/ledger.js";
export { demoRunbookDocuments } from "./ops/runbook-documents.js";
export { ENVIRONMENT_IDS, LOG_LEVELS } from "./ops/data/index.js";
export { createDemoTools } from "./tools/index.js";
