// The HTTP API as the page uses it: JSON calls, and run streams read from a POST with fetch.

const TOKEN_KEY = "opspilot.token";

/** An API refusal with its stable code. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** Remembers the bearer token for this browser (only needed when the server has tokens). */
export function saveToken(token) {
  if (token) window.localStorage.setItem(TOKEN_KEY, token);
  else window.localStorage.removeItem(TOKEN_KEY);
}

/** Whether this browser holds a bearer token. */
export function hasToken() {
  return window.localStorage.getItem(TOKEN_KEY) !== null;
}

async function request(path, { method = "GET", body, signal } = {}) {
  const headers = { Accept: body === undefined ? "application/json" : "text/event-stream, application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const token = window.localStorage.getItem(TOKEN_KEY);
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
  });
  if (!response.ok) {
    const payload = await response.json().catch(() => ({}));
    throw new ApiError(
      response.status,
      payload.error?.code ?? "http_error",
      payload.error?.message ?? response.statusText,
    );
  }
  return response;
}

const threadPath = (threadId) => `/api/threads/${encodeURIComponent(threadId)}`;

/** Creates a thread and returns its id. */
export async function createThread() {
  const response = await request("/api/threads", { method: "POST", body: {} });
  return (await response.json()).threadId;
}

/** The thread's status, messages and pending pause. */
export async function getThread(threadId) {
  return (await request(threadPath(threadId))).json();
}

/** The caller's threads: those waiting for them first, then the most recent. */
export async function listThreads() {
  return (await (await request("/api/threads?mine=1&shared=1")).json()).threads;
}

/** The incidents the caller's team follows (operators and admins; others get a 403), firing first, then the newest. */
export async function listIncidents() {
  return (await (await request("/api/incidents")).json()).incidents;
}

const incidentPath = (incidentId) => `/api/incidents/${encodeURIComponent(incidentId)}`;

/** An incident's timeline: what happened, oldest first, times in UTC (operators and admins). */
export async function getTimeline(incidentId) {
  return (await request(`${incidentPath(incidentId)}/timeline`)).json();
}

/** An incident's postmortem draft, as Markdown text. */
export async function getPostmortem(incidentId) {
  return (await request(`${incidentPath(incidentId)}/postmortem`)).text();
}

/** The full (masked) result of one call; undefined when none was kept (failed calls keep none). */
export async function getResult(threadId, callId) {
  try {
    return (await (await request(`${threadPath(threadId)}/results/${encodeURIComponent(callId)}`)).json()).result;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return undefined;
    throw error;
  }
}

/** Recorded events after a sequence number. */
export async function eventsAfter(threadId, after) {
  return (await (await request(`${threadPath(threadId)}/events?after=${after}`)).json()).events;
}

/** Asks the server to stop the thread's running run. */
export async function cancelRun(threadId) {
  await request(`${threadPath(threadId)}/cancel`, { method: "POST", body: {} });
}

/** The records summary over `[since, until)` (ISO 8601 strings), as the dashboard draws it. */
export async function getSummary(since, until) {
  const query = new URLSearchParams({ since, until });
  return (await request(`/api/records/summary?${query}`)).json();
}

/**
 * Starts a run and calls `onEvent` for each streamed event until the stream ends: the
 * recorded events (with `seq`) and, between them, `assistant_delta` answer fragments (without).
 */
export function streamRun(threadId, message, onEvent, signal) {
  return streamPost(`${threadPath(threadId)}/runs`, { message }, onEvent, signal);
}

/** Resumes a pause and calls `onEvent` for each streamed event until the stream ends. */
export function streamResume(threadId, resume, onEvent, signal) {
  return streamPost(`${threadPath(threadId)}/resume`, resume, onEvent, signal);
}

/** Finishes a run whose server process stopped mid-step, and streams its events. */
export function streamRecover(threadId, onEvent, signal) {
  return streamPost(`${threadPath(threadId)}/recover`, {}, onEvent, signal);
}

/**
 * Sends a message with a multitask strategy (`enqueue` or `interrupt`) for a thread that is
 * running or waits for an answer. Resolves once the server has answered: `{ queued: { messageId,
 * position } }` when it queued the message (202), else `{ stream(onEvent) }`, which reads the new
 * run's events. The request leaves at once, so an interrupt reaches the server while the page
 * still follows the run it stops.
 */
export async function postMessage(threadId, message, multitaskStrategy, signal) {
  const response = await request(`${threadPath(threadId)}/runs`, {
    method: "POST",
    body: { message, multitaskStrategy },
    signal,
  });
  if (response.status === 202) return { queued: await response.json() };
  return { stream: (onEvent) => readEvents(response, onEvent) };
}

async function streamPost(path, body, onEvent, signal) {
  const response = await request(path, { method: "POST", body, signal });
  await readEvents(response, onEvent);
}

async function readEvents(response, onEvent) {
  for await (const frame of readFrames(response.body)) {
    if (frame.event === "error") throw new ApiError(500, "internal", "The run stream failed.");
    onEvent(JSON.parse(frame.data));
  }
}

/** Parses a text/event-stream body into `{ event, id, data }` frames. */
export async function* readFrames(body) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    const blocks = buffer.split(/\r?\n\r?\n/);
    buffer = blocks.pop();
    for (const block of blocks) {
      const frame = parseFrame(block);
      if (frame) yield frame;
    }
  }
  const last = parseFrame(buffer);
  if (last) yield last;
}

function parseFrame(block) {
  const frame = { event: "message", id: undefined, data: "" };
  const data = [];
  for (const line of block.split(/\r?\n/)) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "data") data.push(value);
    else if (field === "event") frame.event = value;
    else if (field === "id") frame.id = value;
  }
  if (data.length === 0) return undefined;
  frame.data = data.join("\n");
  return frame;
}
