import {
  validateNamespace,
  type GetOperation,
  type ListNamespacesOperation,
  type MatchCondition,
  type Operation,
  type PutOperation,
  type SearchOperation,
} from "@langchain/langgraph-checkpoint";
import { checkFilter } from "./store-filter.js";

/** The four operations of a LangGraph store batch. */
export type Kind = "get" | "search" | "put" | "list";

/** The kind of an operation, told apart as `InMemoryStore` tells them; anything else is a `TypeError`. */
export function kindOf(operation: Operation): Kind {
  if ("namespacePrefix" in operation) return "search";
  if ("namespace" in operation && "key" in operation) return "value" in operation ? "put" : "get";
  if ("matchConditions" in operation || "limit" in operation) return "list";
  throw new TypeError(`Unknown store operation: ${JSON.stringify(operation)}`);
}

/** A count `name` of an operation: a non-negative integer, `fallback` when omitted. */
export function count(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || (value as number) < 0)
    throw new TypeError(`A store operation's ${name} must be a non-negative integer, got ${String(value)}.`);
  return value as number;
}

/** Checks an operation before anything of its batch runs, so a bad one changes nothing. */
export function check(operation: Operation, kind: Kind): void {
  switch (kind) {
    case "get":
    case "put": {
      const { namespace, key } = operation as GetOperation;
      validateNamespace(namespace, { allowReservedRoot: true });
      if (typeof key !== "string") throw new TypeError(`A store key must be a string, got ${typeof key}.`);
      if (kind === "get") return;
      const { value } = operation as PutOperation;
      if (value !== null && (typeof value !== "object" || Array.isArray(value)))
        throw new TypeError(`A store value must be an object (or null to delete), got ${typeof value}.`);
      return;
    }
    case "search": {
      const search = operation as SearchOperation;
      if (search.namespacePrefix.length > 0) validateNamespace(search.namespacePrefix, { allowReservedRoot: true });
      count(search.limit, "limit", 10);
      count(search.offset, "offset", 0);
      checkFilter(search.filter);
      return;
    }
    case "list": {
      const list = operation as ListNamespacesOperation;
      for (const condition of list.matchConditions ?? []) {
        if (condition.matchType !== "prefix" && condition.matchType !== "suffix")
          throw new TypeError(`Unsupported namespace match type: ${String(condition.matchType)}.`);
        if (!Array.isArray(condition.path) || !condition.path.every((label) => typeof label === "string"))
          throw new TypeError("A namespace match path must be an array of labels.");
      }
      if (list.maxDepth !== undefined && count(list.maxDepth, "maxDepth", 0) === 0)
        throw new TypeError("A store operation's maxDepth must be at least 1.");
      count(list.limit, "limit", 0);
      count(list.offset, "offset", 0);
      return;
    }
    default: {
      const _exhaustive: never = kind;
      throw new TypeError(`Unknown store operation kind ${String(_exhaustive)}`);
    }
  }
}

/** Whether `namespace` meets a prefix or suffix condition (`*` matches any one label), as `InMemoryStore` decides. */
export function meets(namespace: string[], { matchType, path }: MatchCondition): boolean {
  if (path.length > namespace.length) return false;
  const start = matchType === "prefix" ? 0 : namespace.length - path.length;
  return path.every((label, index) => label === "*" || namespace[start + index] === label);
}
