import { hostname } from "node:os";

/** This process as a lease owner: `host:pid`. */
export const LEASE_OWNER = `${hostname()}:${process.pid}`;

/**
 * Whether a lease owner may still be running. A process on this host is checked directly,
 * so a run killed mid-step frees its thread at once; other hosts are trusted until the lease expires.
 */
export function ownerMayBeAlive(owner: string): boolean {
  const separator = owner.lastIndexOf(":");
  const host = owner.slice(0, separator);
  const pid = Number(owner.slice(separator + 1));
  if (host !== hostname() || !Number.isInteger(pid)) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
