import { describe, expect, it } from "vitest";
import { readRunOptions } from "../../../src/graph/config.js";
import { AUTH_USER_OPEN, UnknownAuthUserError } from "../../../src/graph/auth-user.js";

const studioUser = { identity: "langgraph-studio-user", permissions: [], is_authenticated: true };

describe("the run's user on a LangGraph server with auth (issue 25)", () => {
  it("takes the authenticated caller's id and role over what the context and configurable claim", () => {
    const options = readRunOptions({
      configurable: {
        userId: "mallory",
        role: "admin",
        langgraph_auth_user: { identity: "vic", role: "viewer", permissions: ["role:viewer"] },
      },
      context: { userId: "mallory", role: "admin", maxSteps: 2 },
    } as never);
    expect(options).toMatchObject({ userId: "vic", role: "viewer", maxSteps: 2 });
  });

  it("refuses a caller without an opspilot role (LangGraph's Studio user) instead of giving it a default", () => {
    expect(() => readRunOptions({ configurable: { langgraph_auth_user: studioUser } })).toThrow(UnknownAuthUserError);
    expect(() =>
      readRunOptions({ configurable: { langgraph_auth_user: { identity: "x", role: "root", permissions: [] } } }),
    ).toThrow("x has no opspilot role");
  });

  it("keeps the options' user on an open server (no tokens) and without a server", () => {
    const open = { identity: "local", permissions: [], [AUTH_USER_OPEN]: true };
    expect(
      readRunOptions({ configurable: { langgraph_auth_user: open }, context: { role: "viewer" } } as never),
    ).toMatchObject({ userId: "local", role: "viewer" });
    expect(readRunOptions({ configurable: { userId: "ann", role: "admin" } })).toMatchObject({
      userId: "ann",
      role: "admin",
    });
  });
});
