import { describe, expect, it } from "vitest";
import { describeDatabase } from "../../../src/service/probes/database-probes.js";

describe("the one line naming the database in use (start-up and doctor)", () => {
  it("names the SQLite file, or PostgreSQL's host and database with every password masked", () => {
    expect(describeDatabase({ OPSPILOT_DB: "/data/opspilot.sqlite" })).toBe("SQLite /data/opspilot.sqlite");
    expect(
      describeDatabase({
        OPSPILOT_DB: "/data/opspilot.sqlite",
        DATABASE_URL: "postgres://opspilot:hunter22@db.internal:5432/opspilot?sslmode=require&sslpassword=k3y",
      }),
    ).toBe("PostgreSQL postgres://opspilot:****@db.internal:5432/opspilot?sslmode=require&sslpassword=****");
  });
});
