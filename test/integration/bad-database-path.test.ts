import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCliProcess } from "../fixtures/cli-process.js";

const directory = mkdtempSync(join(tmpdir(), "opspilot-bad-db-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const notSqlite = join(directory, "notes.txt");
writeFileSync(notSqlite, "these are my notes, not a database\n");

/** Each bad OPSPILOT_DB and the one line both `npm start` and the CLI print for it. */
const CASES = [
  ["a file that is not SQLite", notSqlite, `it is not a SQLite database (file is not a database)`],
  ["a path under a regular file", join(notSqlite, "db", "opspilot.sqlite"), `${notSqlite} is a file, not a directory.`],
  [
    "a path whose directory cannot be created",
    "/proc/opspilot-nope/opspilot.sqlite",
    "cannot create /proc/opspilot-nope (ENOENT: no such file or directory, mkdir '/proc/opspilot-nope').",
  ],
] as const;

describe("a bad OPSPILOT_DB", { timeout: 90_000 }, () => {
  it.each(CASES)("stops npm start and the CLI with one line and exit 2 for %s", async (_name, db, reason) => {
    const line = `opspilot: Cannot open the SQLite database ${db}: ${reason}`;
    const [server, cli] = await Promise.all([
      runCliProcess([], { db, entry: "src/main.ts", env: { PORT: "0" } }, 45_000),
      runCliProcess(["ask", "how is payment-service doing?"], { db }, 45_000),
    ]);
    // The CLI's line ends with the error's code, as for every configuration error it refuses.
    for (const [result, expected] of [
      [server, line],
      [cli, `${line} [config_invalid]`],
    ] as const) {
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr.trim().split("\n")).toEqual([expected]);
    }
  });
});
