import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OidcSettings } from "../../src/config/oidc-settings.js";
import { openSqlite } from "../../src/storage/sqlite/open-sqlite.js";
import { hasChromium, useChromium } from "../fixtures/browser.js";
import { startDevServer, type DevServer } from "../fixtures/dev-server.js";
import { ApiClient, startTestServer, type TestServer } from "../fixtures/http.js";
import { pauseOf } from "../fixtures/mcp-app.js";
import { startOidcProvider, type OidcFixture } from "../fixtures/oidc-provider.js";
import { freePort } from "../fixtures/ports.js";

const AUDIENCE = "https://opspilot.example/api";
const ROLES = { "sre-leads": "admin", "sre-oncall": "operator" } as const;
/** Client-credentials "users" and their groups. */
const CLIENTS = {
  olga: ["sre-oncall"],
  lee: ["sre-oncall", "sre-leads"],
  mo: ["marketing"],
  quick: ["sre-oncall"],
};
const PAGE_CLIENT = "opspilot-page";

const settingsFor = (issuer: string, clientId?: string): OidcSettings => ({
  issuer,
  audience: AUDIENCE,
  roles: Object.entries(ROLES),
  groupsClaim: "groups",
  ...(clientId ? { clientId } : {}),
});

describe("single sign-on with a real OpenID provider (issue 25)", () => {
  let provider: OidcFixture;
  let stranger: OidcFixture;
  let server: TestServer;

  beforeAll(async () => {
    const port = await freePort();
    server = await startTestServer({ auth: { oidc: settingsFor(`http://127.0.0.1:${port}`, PAGE_CLIENT) } });
    provider = await startOidcProvider({
      port,
      audience: AUDIENCE,
      clients: CLIENTS,
      shortLived: ["quick"],
      people: { pat: ["sre-oncall"] },
      pageClient: { clientId: PAGE_CLIENT, redirectUri: `${server.url}/auth/callback` },
    });
    stranger = await startOidcProvider({ audience: AUDIENCE, clients: CLIENTS });
  });
  afterAll(async () => {
    await server?.close();
    await provider?.close();
    await stranger?.close();
  });

  it("builds the sign-in's callback on OPSPILOT_PUBLIC_URL, the address behind a TLS proxy", async () => {
    const behindProxy = await startTestServer({
      auth: { oidc: { ...settingsFor(provider.issuer, PAGE_CLIENT), publicUrl: "https://opspilot.example.com" } },
    });
    try {
      const login = await fetch(`${behindProxy.url}/auth/login`, { redirect: "manual" });
      expect(login.status).toBe(302);
      const target = new URL(login.headers.get("location")!);
      expect(target.searchParams.get("redirect_uri")).toBe("https://opspilot.example.com/auth/callback");
      // Without it, the callback is the address the request came to.
      const direct = await fetch(`${server.url}/auth/login`, { redirect: "manual" });
      expect(new URL(direct.headers.get("location")!).searchParams.get("redirect_uri")).toBe(
        `${server.url}/auth/callback`,
      );
    } finally {
      await behindProxy.close();
    }
  });

  it("lets a token of the sre-oncall group act as an operator on the HTTP API", async () => {
    const olga = new ApiClient(server.url, await provider.token("olga"));
    const threadId = await olga.createThread();
    const pause = pauseOf(await olga.run(threadId, "restart payment-service in prod"));
    const [call] = pause.calls;
    const events = await olga.resume(threadId, {
      decisions: [{ callId: call!.callId, action: "approve", argsHash: call!.argsHash }],
    });
    expect(events.at(-1)).toMatchObject({ type: "run_finished", stopReason: "final_answer" });
    expect(await server.store.countActions({ action: "restart" })).toBe(1);
    const records = await olga.request("GET", `/api/threads/${threadId}/records`);
    const { decisions } = (await records.json()) as { decisions: Array<Record<string, unknown>> };
    expect(decisions.map((row) => [row.user_id, row.role])).toEqual([["olga", "operator"]]);
  });

  it("takes the first mapped group a token holds, and refuses an admin-only tool to an operator", async () => {
    const lee = new ApiClient(server.url, await provider.token("lee"));
    const olga = new ApiClient(server.url, await provider.token("olga"));
    for (const [client, allowed] of [
      [lee, true],
      [olga, false],
    ] as const) {
      const threadId = await client.createThread();
      const events = await client.run(threadId, "roll back payment-service in prod");
      if (allowed) expect(pauseOf(events).calls[0]).toMatchObject({ tool: "rollback_deploy" });
      else
        expect(events.find((event) => event.type === "tool_result" && event.tool === "rollback_deploy")).toMatchObject({
          tool: "rollback_deploy",
          errorCode: "permission_denied",
        });
    }
  });

  it("refuses an expired token, another issuer's, another audience's and one without a mapped group", async () => {
    const quick = await provider.token("quick");
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const cases: Array<[string, number, string]> = [
      [quick, 401, "has expired"],
      [await stranger.token("olga"), 401, "not issued by this server's sign-in provider"],
      [await provider.token("olga", { audience: "https://other.example/api" }), 401, "audience differs"],
      [await provider.token("mo"), 403, "mo holds no group that opspilot maps to a role"],
      ["not-a-jwt-and-not-a-static-token", 401, "Authorization: Bearer"],
    ];
    for (const [token, status, message] of cases) {
      const response = await new ApiClient(server.url, token).request("GET", "/api/threads");
      expect(response.status, message).toBe(status);
      expect(((await response.json()) as { error: { message: string } }).error.message).toContain(message);
    }
  });

  describe.skipIf(!hasChromium)("the page", () => {
    const suite = useChromium();

    it("signs in through the provider and approves a pause", async () => {
      const page = await suite.browser.newPage({ viewport: { width: 1000, height: 900 }, locale: "en-US" });
      await page.goto(`${server.url}/`);
      const signIn = page.getByRole("link", { name: "Sign in with single sign-on" });
      await signIn.waitFor();
      await signIn.click();
      // The provider's development login form takes any name and password; pat is in sre-oncall.
      await page.locator("input[name=login]").fill("pat");
      await page.locator("input[name=password]").fill("any");
      await page.locator("button[type=submit]").click();
      await page.locator("button[type=submit]").click(); // consent
      await page.waitForURL(`${server.url}/`);
      expect(await page.evaluate(() => window.localStorage.getItem("opspilot.token"))).toMatch(
        /^[\w-]+\.[\w-]+\.[\w-]+$/,
      );
      await page.getByLabel("Your question").fill("restart payment-service in prod");
      await page.getByRole("button", { name: "Send", exact: true }).click();
      const pause = page.locator("form.pause");
      await pause.getByRole("button", { name: /^Approve/ }).click();
      await page.locator(".run[data-state=final_answer]").waitFor();
      expect(await server.store.countActions({ action: "restart" })).toBeGreaterThanOrEqual(1);
      const threads = await new ApiClient(
        server.url,
        (await page.evaluate(() => window.localStorage.getItem("opspilot.token")))!,
      ).request("GET", "/api/threads?mine=1");
      const listed = (await threads.json()) as { threads: Array<{ threadId: string }> };
      expect(listed.threads.length).toBe(1);
    });
  });
});

describe("single sign-on on the LangGraph server (issue 25)", () => {
  let provider: OidcFixture;
  let server: DevServer;

  beforeAll(async () => {
    provider = await startOidcProvider({ audience: AUDIENCE, clients: CLIENTS });
    server = await startDevServer({
      OPSPILOT_OIDC_ISSUER: provider.issuer,
      OPSPILOT_OIDC_AUDIENCE: AUDIENCE,
      OPSPILOT_CONFIG: writeConfig(),
    });
  }, 120_000);
  afterAll(async () => {
    if (server) expect(await server.stop()).toBe(true);
    await provider?.close();
  }, 30_000);

  const writeConfig = () => {
    const path = join(process.env.TMPDIR ?? "/tmp", `opspilot-sso-${process.pid}.json`);
    writeFileSync(path, JSON.stringify({ auth: { oidc: { roles: ROLES } } }));
    return path;
  };

  it("acts as the token's user and role, and refuses a token without a mapped group", async () => {
    const olga = new Client({
      apiUrl: server.apiUrl,
      defaultHeaders: { Authorization: `Bearer ${await provider.token("olga")}` },
    });
    const { thread_id: threadId } = await olga.threads.create();
    await olga.runs.wait(threadId, "opspilot", {
      input: { messages: [{ role: "user", content: "restart payment-service in prod" }] },
      context: { role: "admin" },
    });
    const state = await olga.threads.getState(threadId);
    const pause = state.tasks.flatMap((task) => task.interrupts.map((item) => item.value))[0] as {
      calls: Array<{ callId: string; argsHash: string }>;
    };
    const done = (await olga.runs.wait(threadId, "opspilot", {
      command: { resume: { decisions: [{ type: "approve" }] } },
    })) as {
      stop: { reason: string };
    };
    expect(pause.calls).toHaveLength(1);
    expect(done.stop.reason).toBe("final_answer");
    const storage = openSqlite(join(server.directory, "opspilot.sqlite"));
    const { decisions } = await storage.storage.threadRecords(threadId);
    storage.close();
    expect(decisions.map((row) => [row.action, row.user_id, row.role])).toEqual([["approve", "olga", "operator"]]);

    const response = await fetch(`${server.apiUrl}/threads/search`, {
      method: "POST",
      headers: { "content-type": "application/json", Authorization: `Bearer ${await provider.token("mo")}` },
      body: "{}",
    });
    expect(response.status).toBe(403);
  });
});
