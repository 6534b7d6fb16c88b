import { Octokit } from "@octokit/rest";
import { api as pagerduty } from "@pagerduty/pdjs";
import { WebClient, WebClientEvent, ErrorCode, LogLevel, type WebAPIPlatformError } from "@slack/web-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GITHUB_TOKEN, startGithubApi } from "../fixtures/github-api-standin.js";
import { PAGERDUTY_API_TOKEN, PAGERDUTY_FROM, startPagerdutyApi } from "../fixtures/pagerduty-api-standin.js";
import { SLACK_BOT_TOKEN, startSlackApi } from "../fixtures/slack-api-standin.js";

/** Octokit logs each refused request; the test reads the refusals itself. */
const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

describe("the write-back stand-ins, driven by the official clients", { timeout: 20_000 }, () => {
  let slack: Awaited<ReturnType<typeof startSlackApi>>;
  let pagerdutyApi: Awaited<ReturnType<typeof startPagerdutyApi>>;
  let github: Awaited<ReturnType<typeof startGithubApi>>;

  beforeAll(async () => {
    slack = await startSlackApi();
    pagerdutyApi = await startPagerdutyApi({ incidents: ["Q1ABCDEFGH"] });
    github = await startGithubApi({ repos: ["acme/payments"] });
  });
  afterAll(async () => {
    await Promise.all([slack.close(), pagerdutyApi.close(), github.close()]);
  });

  it("answers @slack/web-api's chat.postMessage with a ts that a reply's thread_ts names", async () => {
    const client = new WebClient(SLACK_BOT_TOKEN, { slackApiUrl: `${slack.apiUrl}/`, logLevel: LogLevel.ERROR });
    const parent = await client.chat.postMessage({ channel: "#incidents", text: "parent" });
    expect(parent).toMatchObject({ ok: true, channel: "C0INCIDENT1", ts: "1764700000.000001" });
    const reply = await client.chat.postMessage({
      channel: parent.channel!,
      thread_ts: parent.ts!,
      text: "reply",
      blocks: [{ type: "section", text: { type: "mrkdwn", text: "reply" } }],
    });
    expect(reply).toMatchObject({ ok: true, ts: "1764700000.000002", message: { thread_ts: parent.ts } });
    // The client sends a form with blocks as a JSON string; the stand-in reads them as Slack does.
    expect(slack.requests.at(-1)!.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(slack.messages.at(-1)).toMatchObject({ thread_ts: parent.ts, blocks: [{ type: "section" }] });
  });

  it("refuses as Slack does, which @slack/web-api reports as platform errors", async () => {
    const client = new WebClient(SLACK_BOT_TOKEN, { slackApiUrl: `${slack.apiUrl}/`, logLevel: LogLevel.ERROR });
    const refused = (promise: Promise<unknown>) =>
      promise.then(
        () => "posted",
        (error: WebAPIPlatformError) => `${error.code} ${error.data.error}`,
      );
    expect(await refused(client.chat.postMessage({ channel: "#elsewhere", text: "x" }))).toBe(
      `${ErrorCode.PlatformError} channel_not_found`,
    );
    expect(await refused(client.chat.postMessage({ channel: "#incidents", text: "x", thread_ts: "1.2" }))).toBe(
      `${ErrorCode.PlatformError} thread_not_found`,
    );
    const stranger = new WebClient("xoxb-someone-else", { slackApiUrl: `${slack.apiUrl}/`, logLevel: LogLevel.ERROR });
    expect(await refused(stranger.chat.postMessage({ channel: "#incidents", text: "x" }))).toBe(
      `${ErrorCode.PlatformError} invalid_auth`,
    );
  });

  it("rate limits with a Retry-After that @slack/web-api waits before it posts again", async () => {
    const client = new WebClient(SLACK_BOT_TOKEN, { slackApiUrl: `${slack.apiUrl}/`, logLevel: LogLevel.ERROR });
    const limited: number[] = [];
    client.on(WebClientEvent.RATE_LIMITED, (seconds: number) => limited.push(seconds));
    slack.rateLimit(1, 1);
    const started = Date.now();
    const posted = await client.chat.postMessage({ channel: "C0INCIDENT1", text: "after the limit" });
    expect(posted.ok).toBe(true);
    expect(limited).toEqual([1]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
  });

  it("takes @pagerduty/pdjs's note on an incident and lists it back", async () => {
    const pd = pagerduty({ token: PAGERDUTY_API_TOKEN });
    const created = await pd.post(`/incidents/Q1ABCDEFGH/notes`, {
      url: `${pagerdutyApi.apiUrl}/incidents/Q1ABCDEFGH/notes`,
      headers: { From: PAGERDUTY_FROM },
      data: { note: { content: "Investigated: the pool is exhausted." } },
    });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({ note: { id: "PNOTE1", content: "Investigated: the pool is exhausted." } });
    const listed = await pd.get(`/incidents/Q1ABCDEFGH/notes`, {
      url: `${pagerdutyApi.apiUrl}/incidents/Q1ABCDEFGH/notes`,
    });
    expect(listed.data).toMatchObject({ notes: [{ id: "PNOTE1", user: { summary: PAGERDUTY_FROM } }] });
    const anonymous = await pd.post(`/incidents/Q1ABCDEFGH/notes`, {
      url: `${pagerdutyApi.apiUrl}/incidents/Q1ABCDEFGH/notes`,
      data: { note: { content: "no From" } },
    });
    expect(anonymous.status).toBe(400);
    expect(anonymous.data).toMatchObject({ error: { errors: ["Requester User Not Found"] } });
  });

  it("creates and reads back @octokit/rest's issue, and refuses an unknown repository and a bad token", async () => {
    const octokit = new Octokit({ auth: GITHUB_TOKEN, baseUrl: github.url, log: quiet });
    const created = await octokit.rest.issues.create({
      owner: "acme",
      repo: "payments",
      title: "Follow-ups",
      body: "- [ ] add an alert",
      labels: ["incident-follow-up"],
    });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({ number: 1, title: "Follow-ups", labels: [{ name: "incident-follow-up" }] });
    const read = await octokit.rest.issues.get({ owner: "acme", repo: "payments", issue_number: 1 });
    expect(read.data.body).toBe("- [ ] add an alert");
    const status = (promise: Promise<unknown>) =>
      promise.then(
        () => 200,
        (error: { status: number }) => error.status,
      );
    expect(await status(octokit.rest.issues.create({ owner: "acme", repo: "other", title: "x" }))).toBe(404);
    const stranger = new Octokit({ auth: "ghp_wrong", baseUrl: github.url, log: quiet });
    expect(await status(stranger.rest.issues.create({ owner: "acme", repo: "payments", title: "x" }))).toBe(401);
  });
});
