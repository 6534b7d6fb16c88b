/** The comparison operators a store search filter may use, as LangGraph's `InMemoryStore` reads them. */
const OPERATORS = ["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin"] as const;

/** One comparison operator of a search filter. */
type Operator = (typeof OPERATORS)[number];

/** A value a filter compares a top-level field with. */
type Scalar = string | number | boolean | null;

/** A search filter: per top-level field of an item's value, a value it must equal or an object of operators. */
export type StoreFilter = Record<string, Scalar | Partial<Record<Operator, Scalar | Scalar[]>>>;

const isScalar = (value: unknown): value is Scalar =>
  value === null || ["string", "number", "boolean"].includes(typeof value);

const isOperator = (name: string): name is Operator => (OPERATORS as readonly string[]).includes(name);

const describe = (value: unknown) => (Array.isArray(value) ? "an array" : value === null ? "null" : typeof value);

/**
 * Checks a search filter's shape: each field's condition is a string, number, boolean or null
 * (equality), or a non-empty object of operators with scalar operands (`$in` and `$nin` take an
 * array of them). Anything else is a `TypeError` naming the field: `InMemoryStore` would compare
 * an object by reference and silently match nothing.
 */
export function checkFilter(filter: unknown): asserts filter is StoreFilter | undefined {
  if (filter === undefined || filter === null) return;
  if (typeof filter !== "object" || Array.isArray(filter))
    throw new TypeError(`A store search filter must be an object of fields, got ${describe(filter)}.`);
  for (const [field, condition] of Object.entries(filter)) {
    if (isScalar(condition)) continue;
    const names = typeof condition === "object" && !Array.isArray(condition) ? Object.keys(condition) : [];
    if (names.length === 0 || !names.every(isOperator))
      throw new TypeError(
        `Store search filter on "${field}": expected a string, number, boolean, null or an object of operators ` +
          `(${OPERATORS.join(", ")}), got ${names.length ? `keys ${names.join(", ")}` : describe(condition)}.`,
      );
    for (const [name, operand] of Object.entries(condition as Record<string, unknown>)) {
      const list = name === "$in" || name === "$nin";
      const fits = list ? Array.isArray(operand) && operand.every(isScalar) : isScalar(operand);
      if (!fits)
        throw new TypeError(
          `Store search filter on "${field}": ${name} takes ${list ? "an array of scalars" : "a scalar"}, got ${describe(operand)}.`,
        );
    }
  }
}

/** Whether `actual` passes one operator, with `InMemoryStore`'s comparisons (numbers through `Number`). */
function passes(actual: unknown, operator: Operator, operand: Scalar | Scalar[]): boolean {
  switch (operator) {
    case "$eq":
      return actual === operand;
    case "$ne":
      return actual !== operand;
    case "$gt":
      return Number(actual) > Number(operand);
    case "$gte":
      return Number(actual) >= Number(operand);
    case "$lt":
      return Number(actual) < Number(operand);
    case "$lte":
      return Number(actual) <= Number(operand);
    case "$in":
      return (operand as Scalar[]).includes(actual as Scalar);
    case "$nin":
      return !(operand as Scalar[]).includes(actual as Scalar);
    default: {
      const _exhaustive: never = operator;
      return _exhaustive;
    }
  }
}

/** Whether an item's value passes a checked filter: every field's condition holds on its own top-level field. */
export function matchesFilter(value: Record<string, unknown>, filter: StoreFilter): boolean {
  return Object.entries(filter).every(([field, condition]) => {
    const actual = Object.hasOwn(value, field) ? value[field] : undefined;
    if (isScalar(condition)) return actual === condition;
    return Object.entries(condition).every(([name, operand]) => passes(actual, name as Operator, operand!));
  });
}
