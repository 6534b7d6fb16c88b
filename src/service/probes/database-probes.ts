import type { Env } from "../../config/env.js";
import { OpsPilotError } from "../../contracts/errors.js";
import { openPostgres } from "../../storage/postgres/open-postgres.js";
import { openSqlite } from "../../storage/sqlite/open-sqlite.js";
import type { ThreadStore } from "../../storage/types.js";
import type { DependencyProbe, ProbeResult } from "./probe.js";
import { firstLine, seconds } from "./probe.js";

/**
 * A database URL with its password masked (`postgres://opspilot:****@db:5432/opspilot`), also one
 * given as a query parameter (`?password=`, `?sslpassword=`); an unparsable one, only its scheme.
 */
export function maskDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "****";
    for (const key of [...parsed.searchParams.keys()])
      if (/pass|secret|key/i.test(key)) parsed.searchParams.set(key, "****");
    return parsed.toString();
  } catch {
    return `${url.split(":", 1)[0]}://…`;
  }
}

/** Which database holds threads, journal and records, and where, in one line (password masked): start-up and doctor say it. */
export function describeDatabase(env: Pick<Env, "DATABASE_URL" | "OPSPILOT_DB">): string {
  return env.DATABASE_URL ? `PostgreSQL ${maskDatabaseUrl(env.DATABASE_URL)}` : `SQLite ${env.OPSPILOT_DB}`;
}

/**
 * Doctor's database probe: opens and closes the database in use, as start-up would (PostgreSQL
 * at `DATABASE_URL` when set, else the SQLite file), one line. With PostgreSQL the SQLite file
 * still holds the demo dataset: it is opened too, and named only when it fails.
 */
export function databaseProbe(env: Pick<Env, "DATABASE_URL" | "OPSPILOT_DB">): DependencyProbe {
  const which = describeDatabase(env);
  return {
    dependency: "database",
    async check(signal): Promise<ProbeResult> {
      const demo = openSqliteFile(env.OPSPILOT_DB);
      if (!env.DATABASE_URL || demo !== undefined)
        return demo === undefined
          ? { dependency: "database", ok: true, detail: `${which} opens` }
          : { dependency: "database", ok: false, detail: demo };
      const failure = await connectPostgres(env.DATABASE_URL, signal);
      return failure === undefined
        ? { dependency: "database", ok: true, detail: `${which} connects` }
        : { dependency: "database", ok: false, detail: `${which}: ${failure}` };
    },
  };
}

/**
 * The running process's database probe: one cheap indexed read through its storage, so a lost
 * PostgreSQL connection, a stopped server or a locked file shows within the probe's time limit.
 */
export function storageProbe(storage: Pick<ThreadStore, "threadOwner">, where: string): DependencyProbe {
  return {
    dependency: "database",
    async check(): Promise<ProbeResult> {
      try {
        await storage.threadOwner("opspilot:probe");
        return { dependency: "database", ok: true, detail: `${where} answers` };
      } catch (error) {
        return { dependency: "database", ok: false, detail: `${where}: ${firstLine(error)}` };
      }
    },
  };
}

/** Why the SQLite file does not open, or undefined when it does. */
function openSqliteFile(path: string): string | undefined {
  try {
    openSqlite(path).close();
    return undefined;
  } catch (error) {
    const reason =
      error instanceof OpsPilotError ? error.message : `Cannot open the SQLite database ${path}: ${firstLine(error)}`;
    return `OPSPILOT_DB: ${reason}`;
  }
}

/** Why PostgreSQL cannot be used, or undefined when it connects (its tables made on first use, as start-up does). */
async function connectPostgres(url: string, signal: AbortSignal): Promise<string | undefined> {
  const opening = openPostgres(url);
  const started = Date.now();
  const late = new Promise<"late">((resolve) =>
    signal.aborted ? resolve("late") : signal.addEventListener("abort", () => resolve("late"), { once: true }),
  );
  try {
    const backend = await Promise.race([opening, late]);
    if (backend === "late") {
      // Closed whenever it does open, so nothing outlives the probe for long.
      opening.then((opened) => opened.close()).catch(() => undefined);
      return `no answer within ${seconds(Date.now() - started)}`;
    }
    await backend.close();
    return undefined;
  } catch (error) {
    return firstLine(error).replace(/^DATABASE_URL:?\s*/, "");
  }
}
