import type { Env } from "../../config/env.js";
import { noticeBody } from "../notices/chat-webhook-body.js";
import type { DependencyProbe, ProbeResult } from "./probe.js";
import { transportError } from "./probe.js";

/** The notice targets of the environment: which kind, its variable, its URL and body format. */
interface NoticeTarget {
  kind: "pause" | "incident";
  variable: "OPSPILOT_PAUSE_WEBHOOK" | "OPSPILOT_INCIDENT_WEBHOOK";
  url: string;
  format: Env["OPSPILOT_PAUSE_WEBHOOK_FORMAT"];
}

type NoticeSettings = Pick<
  Env,
  | "OPSPILOT_PAUSE_WEBHOOK"
  | "OPSPILOT_PAUSE_WEBHOOK_FORMAT"
  | "OPSPILOT_INCIDENT_WEBHOOK"
  | "OPSPILOT_INCIDENT_WEBHOOK_FORMAT"
>;

/** What a test notice says, in every format. */
const TEST_TEXT = "opspilot doctor: a test notice. Pauses and incidents will be announced here.";

/**
 * One probe per configured notice webhook. Without `sendTest` it only checks the setting is
 * well-formed (an http(s) URL; plain http only on this machine, since the URL is the secret), and
 * never posts. With `sendTest` it POSTs one test notice in the target's format, once, and
 * reports the receiver's answer. A line names the target's host, never its path (the path of a
 * chat's incoming webhook is its key).
 */
export function noticeProbes(env: NoticeSettings, options: { sendTest: boolean }): DependencyProbe[] {
  return targetsOf(env).map((target) => ({
    dependency: `webhook:${target.kind}`,
    check: (signal) => (options.sendTest ? sendTest(target, signal) : wellFormed(target)),
  }));
}

function targetsOf(env: NoticeSettings): NoticeTarget[] {
  const targets: NoticeTarget[] = [];
  if (env.OPSPILOT_PAUSE_WEBHOOK)
    targets.push({
      kind: "pause",
      variable: "OPSPILOT_PAUSE_WEBHOOK",
      url: env.OPSPILOT_PAUSE_WEBHOOK,
      format: env.OPSPILOT_PAUSE_WEBHOOK_FORMAT,
    });
  if (env.OPSPILOT_INCIDENT_WEBHOOK)
    targets.push({
      kind: "incident",
      variable: "OPSPILOT_INCIDENT_WEBHOOK",
      url: env.OPSPILOT_INCIDENT_WEBHOOK,
      format: env.OPSPILOT_INCIDENT_WEBHOOK_FORMAT,
    });
  return targets;
}

function where(target: NoticeTarget): string {
  return `${target.kind} notices (${target.format}) to ${new URL(target.url).host}`;
}

async function wellFormed(target: NoticeTarget): Promise<ProbeResult> {
  const url = new URL(target.url);
  const dependency = `webhook:${target.kind}`;
  const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
  if (url.protocol === "http:" && !loopback)
    return {
      dependency,
      ok: false,
      detail: `${where(target)}: plain http leaves this machine; use https in ${target.variable}`,
    };
  if (url.username || url.password)
    return { dependency, ok: false, detail: `${where(target)}: ${target.variable} carries credentials in the URL` };
  return { dependency, ok: true, detail: `${where(target)}: well-formed (not sent; --send-test posts a test notice)` };
}

async function sendTest(target: NoticeTarget, signal: AbortSignal): Promise<ProbeResult> {
  const dependency = `webhook:${target.kind}`;
  const notice = { type: "test", text: TEST_TEXT };
  const started = performance.now();
  const took = () => `${Math.round(performance.now() - started)} ms`;
  try {
    const response = await fetch(target.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(noticeBody(notice, () => TEST_TEXT, target.format)),
      signal,
    });
    await response.body?.cancel();
    if (response.ok)
      return {
        dependency,
        ok: true,
        detail: `${where(target)}: test notice delivered (HTTP ${response.status}, ${took()})`,
      };
    return {
      dependency,
      ok: false,
      detail: `${where(target)}: the receiver refused the test notice (HTTP ${response.status}, ${took()}): check ${target.variable}`,
    };
  } catch (error) {
    return {
      dependency,
      ok: false,
      detail: `${where(target)}: unreachable (${transportError(error, signal)}, ${took()}): check ${target.variable}`,
    };
  }
}
