import type { Database } from "better-sqlite3";
import { ToolError } from "../../contracts/errors.js";
import { closeMatches, editDistance } from "../../tools/edit-distance.js";
import { SERVICES, type ServiceRecord } from "./data/index.js";
import { rankServiceNames } from "./search.js";

/** Folds case, spaces, dashes and underscores: "Payment Service" and "payment-service" become one key. */
function normalize(name: string): string {
  return name.toLowerCase().replace(/[\s\-_]+/g, "");
}

const BY_NAME = new Map<string, ServiceRecord>(
  SERVICES.flatMap((service) =>
    [service.id, service.name, service.nameZh, ...service.aliases].map((name) => [normalize(name), service] as const),
  ),
);

/** Services whose names are close to an unknown name: typos first, then shared name words. */
function closeServices(db: Database, name: string): ServiceRecord[] {
  const key = normalize(name);
  const distance = (service: ServiceRecord) =>
    Math.min(
      ...[service.id, service.name, ...service.aliases].map((candidate) => editDistance(normalize(candidate), key)),
    );
  const byTypo = closeMatches(key, SERVICES, distance).map((service) => service.id);
  const byWords = rankServiceNames(db, name, 3).map((hit) => hit.ref);
  const ids = [...new Set([...byTypo, ...byWords])].slice(0, 3);
  return ids.map((id) => SERVICES.find((service) => service.id === id) as ServiceRecord);
}

/**
 * The service an id or name means, in English or Chinese ("payment-service", "Payment Service",
 * "支付服务", "支付"). Only exact names resolve, because a write must never guess its target;
 * anything else is `not_found` with the closest services named.
 */
export function resolveService(db: Database, name: string): ServiceRecord {
  const service = BY_NAME.get(normalize(name));
  if (service) return service;
  const close = closeServices(db, name);
  const hint =
    close.length > 0
      ? `Did you mean: ${close.map((candidate) => `${candidate.id} (${candidate.nameZh})`).join(", ")}?`
      : `Known services: ${SERVICES.map((candidate) => candidate.id).join(", ")}.`;
  throw new ToolError("not_found", `No service is named "${name}". ${hint}`);
}
