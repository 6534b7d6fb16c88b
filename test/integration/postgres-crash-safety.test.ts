import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHECKPOINT_KILL_POINTS, KILL_POINTS } from "../fixtures/kill-points.js";
import { CRASH_OUTCOMES, crashAndSettle } from "../fixtures/crash-recovery.js";
import { skipPostgres, startPostgresCluster, type PostgresCluster } from "../fixtures/postgres-cluster.js";

describe.skipIf(skipPostgres)("crash safety of writes on PostgreSQL", () => {
  let cluster: PostgresCluster;
  let directory: string;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    console.log(`[postgres] private cluster started in ${cluster.startSeconds.toFixed(2)} s`);
    directory = mkdtempSync(join(tmpdir(), "opspilot-pg-crash-"));
  });

  afterAll(async () => {
    await cluster?.stop();
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  it.each([...KILL_POINTS, ...CHECKPOINT_KILL_POINTS])(
    "leaves a thread the user can act on, and applies the restart at most once, when killed at %s",
    async (killPoint) => {
      // Each kill point has its own database (and so its own demo estate): its restarts are counted alone.
      const databaseUrl = await cluster.createDatabase(`crash_${killPoint.replaceAll("-", "_")}`);
      const backend = { dbPath: join(directory, `${killPoint}.sqlite`), databaseUrl };
      expect(await crashAndSettle(backend, killPoint)).toEqual(CRASH_OUTCOMES[killPoint]);
    },
  );
});
