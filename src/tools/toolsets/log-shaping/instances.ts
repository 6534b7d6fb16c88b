import { z } from "zod";

/** One configured instance of a log backend, named (a single unnamed one is called "default"). */
export type Named<Instance> = Instance & { name: string };

/** A toolset's instances as a list: one unnamed instance becomes `default`. */
export function instancesOf<Instance extends object>(
  config: Instance | ReadonlyArray<Named<Instance>>,
): ReadonlyArray<Named<Instance>> {
  return isList(config) ? config : [{ ...config, name: "default" }];
}

function isList<Instance>(config: Instance | ReadonlyArray<Named<Instance>>): config is ReadonlyArray<Named<Instance>> {
  return Array.isArray(config);
}

/**
 * The tools' `instance` argument when several instances are configured: an enum of their names,
 * the first by default. With one instance, no argument.
 */
export function instanceShape(names: readonly string[], backend: string) {
  if (names.length < 2) return {};
  return {
    instance: z
      .enum(names as [string, ...string[]])
      .default(names[0]!)
      .describe(`Which ${backend} to read: ${names.join(", ")} (default ${names[0]})`),
  };
}

/** The instance a call names, else the first. */
export function pickInstance<Instance extends { name: string }>(
  instances: readonly Instance[],
  name: unknown,
): Instance {
  return instances.find((instance) => instance.name === name) ?? instances[0]!;
}

/** How a digest names its source: the backend, with the instance when there are several. */
export function sourceName(backend: string, instance: { name: string }, count: number): string {
  return count > 1 ? `${backend} ${instance.name}` : backend;
}
