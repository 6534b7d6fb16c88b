import { z } from "zod";

const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** An object name by Kubernetes' rule (a DNS-1123 subdomain, at most 253 characters), checked before any request. */
export const objectName = z
  .string()
  .max(253)
  .regex(SUBDOMAIN, { error: "must be a Kubernetes object name (lowercase letters, digits, '-' and '.')" });

/** A namespace or container name by Kubernetes' rule (a DNS-1123 label, at most 63 characters). */
export const labelName = z
  .string()
  .max(63)
  .regex(LABEL, { error: "must be a Kubernetes name (lowercase letters, digits and '-', at most 63)" });

/** The `namespace` argument every namespaced tool takes: one of the configured namespaces. */
export function namespaceField(namespaces: readonly string[]) {
  return labelName
    .refine((value) => namespaces.includes(value), {
      error: `must be one of the allowed namespaces: ${namespaces.join(", ")}`,
    })
    .describe(`The namespace, one of: ${namespaces.join(", ")}.`);
}

/** The `cluster` argument when several clusters are configured; absent for one. */
export function clusterField(names: readonly string[]) {
  return z
    .enum(names as [string, ...string[]])
    .optional()
    .describe(`Which cluster (default ${names[0]}).`);
}
