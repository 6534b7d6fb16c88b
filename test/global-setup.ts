import { bundleChildren } from "./fixtures/ts-children.js";

/** Bundles the child entry points once per run (see ts-children.ts), and removes them after. */
export default async function setup(): Promise<() => void> {
  return bundleChildren();
}
