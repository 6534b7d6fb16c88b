// The page's controller: thread id in the address, the thread list, live run streams (with the
// answer streaming in), pauses, Stop, a message sent while a run works or waits (queued or
// interrupting), and a reload that redraws the thread from its events.
import { putThreadIdInAddress, threadIdFromAddress } from "./address.js";
import * as api from "./api.js";
import { apiErrorText, applyStaticLabels, t, toggleLanguage } from "./i18n.js";
import { answerNote, recordedAnswerNote, renderPause } from "./pause.js";
import { IncidentList } from "./incidents.js";
import { QueuedMessages } from "./queued.js";
import { SendChoice } from "./send-choice.js";
import { ThreadList } from "./threads.js";
import { Transcript } from "./transcript.js";

const byId = (id) => document.getElementById(id);
const ui = {
  log: byId("log"),
  composer: byId("composer"),
  message: byId("message"),
  send: byId("send"),
  stop: byId("stop"),
  notice: byId("notice"),
  newThread: byId("new-thread"),
  language: byId("language"),
  tokenForm: byId("token-form"),
  token: byId("token"),
};
const state = {
  threadId: threadIdFromAddress(),
  seen: new Set(),
  lastSeq: 0,
  finished: false,
  running: false,
  paused: false,
  current: undefined,
  // Whether new steps scroll into view: on while the reader is at the newest step.
  follow: true,
  // The pause whose form is on the page: its results close the form when the pause ends elsewhere.
  livePause: undefined,
  // Off once the server refused this user an interrupt (a viewer).
  mayInterrupt: true,
};
const transcript = new Transcript(ui.log, {
  loadResult: (callId) => api.getResult(state.threadId, callId),
});
const queue = new QueuedMessages(transcript);
const choice = new SendChoice({ root: byId("send-choice"), composer: ui.message });
const threadList = new ThreadList({
  list: byId("thread-list"),
  panel: byId("threads-panel"),
  count: byId("waiting-count"),
  current: () => state.threadId,
});
const incidentList = new IncidentList({
  list: byId("incident-list"),
  panel: byId("incidents-panel"),
  count: byId("firing-count"),
  error: byId("incidents-error"),
  current: () => state.threadId,
});

/** Reloads the conversations and the incidents beside them. */
function refreshLists() {
  void threadList.refresh();
  void incidentList.refresh();
}

function setThreadId(threadId) {
  state.threadId = threadId;
  state.seen.clear();
  state.lastSeq = 0;
  putThreadIdInAddress(threadId);
}

function setRunning(running) {
  state.running = running;
  // Stop also ends a pause that waits for an answer, so it stays while one does.
  ui.stop.hidden = !running && !state.paused;
  document.body.dataset.running = String(running);
}

function showNotice(text) {
  ui.notice.textContent = text ?? "";
  ui.notice.hidden = !text;
}

const nearBottom = () => window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 120;

/** Brings the newest step into view (above the composer), or the pending pause when there is one. */
function reveal(target) {
  window.requestAnimationFrame(() => {
    const pause = ui.log.querySelector("form.pause");
    if (pause) return pause.scrollIntoView({ block: "start" });
    if (target === "newest" || state.follow) window.scrollTo({ top: document.documentElement.scrollHeight });
  });
}

// Reading back up stops the following; reaching the bottom again resumes it.
window.addEventListener("scroll", () => (state.follow = nearBottom()), { passive: true });

/** Renders one streamed event; recorded events once each (by their per-thread sequence number). */
function handleEvent(event) {
  if (event.threadId !== state.threadId) return;
  if (event.type === "assistant_delta") {
    transcript.delta(event.runId, event.step, event.text);
    return reveal();
  }
  if (state.seen.has(event.seq)) return;
  state.seen.add(event.seq);
  state.lastSeq = Math.max(state.lastSeq, event.seq);
  if (event.type === "run_started") {
    state.paused = false;
    state.finished = false;
    // A new run takes the message first in line; a continuation takes none.
    if (!event.resumed) queue.started();
  }
  renderEvent(event);
  if (event.type === "run_started" && !event.resumed) queue.keepBelow();
  closeEndedPause(event);
  reveal();
}

/**
 * Closes the pause form once its pause ended without this form's answer (a new message
 * superseded it, another tab answered it): the note says how each call was answered.
 */
function closeEndedPause(event) {
  const pause = state.livePause;
  if (!pause) return;
  if (event.type === "tool_result" && pause.interrupt.calls.some((call) => call.callId === event.callId))
    pause.results.set(event.callId, event);
  if (event.type !== "run_finished" || event.stopReason === "interrupted") return;
  state.livePause = undefined;
  if (!pause.slot.querySelector("form.pause")) return;
  const note = recordedAnswerNote(pause.interrupt, pause.results);
  if (note) pause.slot.replaceChildren(note);
  else pause.slot.remove();
}

/** Draws a recorded event; a pause becomes a form when it is live (`live`), else only its place. */
function renderEvent(event, live = true) {
  switch (event.type) {
    case "run_started":
      return transcript.started(event.runId);
    case "tool_call":
      return void transcript.toolCall(event.runId, event);
    case "tool_result":
      return transcript.toolResult(event.runId, event);
    case "assistant_message":
      return transcript.assistant(event.runId, event.content, event.model);
    case "loop_interrupt": {
      const slot = transcript.paused(event.runId, event);
      if (live) showPause(slot, event);
      return slot;
    }
    case "run_finished":
      state.finished = true;
      transcript.finished(event.runId, event);
      refreshLists();
      return;
  }
}

/**
 * Runs a stream after the one in progress has ended (a pause can be answered before its
 * run_finished arrives); when the connection drops before run_finished, catches up from the
 * recorded events.
 */
function runStream(open) {
  const previous = state.current ?? Promise.resolve();
  state.current = previous.catch(() => {}).then(() => followStream(open));
  return state.current;
}

async function followStream(open) {
  setRunning(true);
  showNotice("");
  state.finished = false;
  try {
    try {
      await open(handleEvent);
    } catch (error) {
      if (error instanceof api.ApiError && error.status < 500) throw error;
      showNotice(t("connectionLost"));
    }
    if (!state.finished) await catchUp();
    if (queue.waiting) await followQueue();
    showNotice("");
  } finally {
    setRunning(false);
  }
}

/**
 * Follows a run the page is not streaming: recorded events after the last one shown (and the
 * queued messages' places), until the thread stops running. Without any event shown yet,
 * redraws the history at the end.
 */
async function catchUp() {
  for (;;) {
    const view = await api.getThread(state.threadId);
    if (state.lastSeq > 0) for (const event of await api.eventsAfter(state.threadId, state.lastSeq)) handleEvent(event);
    // Queued messages move up in line while the runs before them go.
    queue.update(view);
    if (view.status !== "running" || state.finished) {
      if (state.lastSeq === 0) await showThread(view);
      return;
    }
    await sleep(1000);
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** How often the page looks at a thread whose queued messages wait for their turn. */
const QUEUE_POLL_MS = 1000;

/**
 * Follows the thread while messages shown as queued wait: their runs come in from the recorded
 * events, in order, and the markers follow the thread view. A pause in the way ends the wait
 * (the queue waits for the answer too); the last started run is followed to its end.
 */
async function followQueue() {
  const threadId = state.threadId;
  while (queue.waiting && state.threadId === threadId) {
    // The view first: the events read after it hold the start of every run it shows.
    const view = await api.getThread(threadId);
    for (const event of await api.eventsAfter(threadId, state.lastSeq)) handleEvent(event);
    queue.update(view);
    if (view.status === "interrupted") return;
    if (queue.waiting) await sleep(QUEUE_POLL_MS);
  }
  if (state.threadId === threadId && !state.finished) await catchUp();
}

function showPause(slot, interrupt) {
  state.paused = true;
  state.livePause = { slot, interrupt, results: new Map() };
  ui.stop.hidden = false;
  refreshLists();
  renderPause(slot, interrupt, (resume, refuse) => {
    let accepted = false;
    state.follow = true;
    const onEvent = (event) => {
      // The first event means the server took the answer: the form becomes a note.
      if (!accepted) slot.replaceChildren(answerNote(interrupt, resume));
      accepted = true;
      handleEvent(event);
    };
    runStream(() => api.streamResume(state.threadId, resume, onEvent)).catch((error) =>
      error instanceof api.ApiError ? handleRefusal(error, refuse) : refuse(String(error)),
    );
  });
  reveal();
}

function handleRefusal(error, show = showNotice) {
  if (error.status === 401) {
    ui.tokenForm.hidden = false;
    ui.token.focus();
  }
  show(apiErrorText(error.code) ?? error.message);
}

/**
 * Draws the thread from its recorded events — runs with their steps, statuses and answered
 * pauses — with the user's messages from the thread view before the runs they started; a
 * thread without recorded events is drawn from its messages. Ends at the pending pause, if any.
 */
async function showThread(view) {
  const events = await api.eventsAfter(state.threadId, 0);
  state.seen.clear();
  state.lastSeq = 0;
  state.livePause = undefined;
  if (events.length === 0) {
    const slot = transcript.renderHistory(view);
    queue.draw(view.queued);
    if (slot) showPause(slot, view.interrupt);
    return reveal("newest");
  }
  transcript.clear();
  const users = view.messages.filter((message) => message.role === "user");
  const resultsByCall = new Map(events.filter((e) => e.type === "tool_result").map((e) => [e.callId, e]));
  const started = new Set();
  const pauses = [];
  for (const event of events) {
    state.seen.add(event.seq);
    state.lastSeq = Math.max(state.lastSeq, event.seq);
    // Each run that is not a continuation was started by the next user message.
    if (event.type === "run_started" && !event.resumed && !started.has(event.runId) && users.length > 0)
      transcript.addUser(users.shift().content);
    started.add(event.runId);
    const slot = renderEvent(event, false);
    if (event.type === "loop_interrupt") pauses.push({ slot, interrupt: event });
  }
  for (const message of users) transcript.addUser(message.content);
  queue.draw(view.queued);
  const pending = view.interrupt;
  for (const { slot, interrupt } of pauses) {
    if (!slot.isConnected) continue;
    if (pending && interrupt.interruptId === pending.interruptId) continue;
    const note = recordedAnswerNote(interrupt, resultsByCall);
    if (note) slot.replaceChildren(note);
    else slot.remove();
  }
  if (pending) {
    const slot =
      pauses.find((pause) => pause.interrupt.interruptId === pending.interruptId && pause.slot.isConnected)?.slot ??
      transcript.paused([...transcript.runs.keys()].at(-1) ?? "pending", pending);
    showPause(slot, pending);
  }
  reveal("newest");
}

async function load() {
  applyStaticLabels();
  state.paused = false;
  state.follow = true;
  ui.stop.hidden = !state.running;
  choice.close({ focus: false });
  refreshLists();
  if (!state.threadId) {
    transcript.clear();
    queue.draw([]);
    transcript.showEmpty();
    return;
  }
  try {
    const view = await api.getThread(state.threadId);
    await showThread(view);
    // Another tab or a lost connection started this run, or queued messages wait: follow them from the records.
    if (view.status === "running" || (queue.pending && view.status !== "interrupted")) await runStream(async () => {});
    if (view.unfinished) offerRecovery();
  } catch (error) {
    if (error.status === 401) return handleRefusal(error);
    // An unknown or foreign thread id: start afresh rather than failing every message.
    if (error.status === 404) setThreadId(undefined);
    showNotice(t("loadFailed", { message: apiErrorText(error.code) ?? error.message }));
  }
}

/** A run whose server stopped mid-step waits until the user continues it (writes run at most once). */
function offerRecovery() {
  showNotice(t("unfinished"));
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = t("recover");
  button.addEventListener("click", () => {
    showNotice(undefined);
    runStream((onEvent) => api.streamRecover(state.threadId, onEvent)).catch((error) => handleRefusal(error));
  });
  ui.notice.append(" ", button);
}

async function send(message) {
  if (!state.threadId) setThreadId(await api.createThread());
  const bubble = transcript.addUser(message);
  state.follow = true;
  reveal("newest");
  await runStream((onEvent) => api.streamRun(state.threadId, message, onEvent)).catch((error) => {
    bubble.remove();
    throw error;
  });
}

/**
 * Sends the composer's message with `strategy` (`enqueue` or `interrupt`): a queued message shows
 * as queued and the page follows the thread until its run streams in; a streamed answer (the
 * thread was free, or the interrupt went through) streams after the events recorded before it
 * (a superseded pause's closing). Throws the refusal, with the text back in the composer.
 */
async function sendWithStrategy(strategy) {
  const message = ui.message.value.trim();
  if (!message) return;
  ui.message.value = "";
  const bubble = transcript.addUser(message);
  if (strategy === "interrupt") queue.add(bubble, { first: true });
  state.follow = true;
  reveal("newest");
  let posted;
  try {
    posted = await api.postMessage(state.threadId, message, strategy);
  } catch (error) {
    queue.remove(bubble);
    bubble.remove();
    if (!ui.message.value) ui.message.value = message;
    throw error;
  }
  if (posted.queued) queue.add(bubble, posted.queued);
  else if (strategy !== "interrupt") queue.remove(bubble);
  const threadId = state.threadId;
  const open = posted.stream
    ? async (onEvent) => {
        for (const event of await api.eventsAfter(threadId, state.lastSeq)) onEvent(event);
        await posted.stream(onEvent);
      }
    : async () => {};
  runStream(open).catch((error) => (error instanceof api.ApiError ? handleRefusal(error) : showNotice(String(error))));
}

/** What the choice shows when the chosen strategy was refused; undefined once the message is sent. */
async function chooseStrategy(strategy) {
  try {
    await sendWithStrategy(strategy);
    return undefined;
  } catch (error) {
    if (!(error instanceof api.ApiError)) return { error: String(error) };
    if (error.status === 401) handleRefusal(error);
    if (error.status === 403 && strategy === "interrupt") {
      state.mayInterrupt = false;
      return { error: t("interruptRefused"), withoutInterrupt: true };
    }
    return { error: apiErrorText(error.code) ?? error.message };
  }
}

/** Asks what to do with a message for a thread that is `running` or `paused`. */
function offerChoice(standing) {
  showNotice("");
  choice.offer({
    standing,
    // Only viewers are refused the incident list (403), and only viewers may not interrupt.
    canInterrupt: state.mayInterrupt && !incidentList.forbidden,
    onChoose: chooseStrategy,
  });
}

ui.composer.addEventListener("submit", (event) => {
  event.preventDefault();
  const message = ui.message.value.trim();
  if (!message) return;
  if (state.running || state.paused || queue.pending) return offerChoice(state.paused ? "paused" : "running");
  ui.message.value = "";
  send(message).catch((error) => {
    if (!ui.message.value) ui.message.value = message;
    // Another tab or process started a run, or the page did not know of the pause.
    if (error instanceof api.ApiError && (error.code === "thread_busy" || error.code === "thread_paused"))
      return offerChoice(error.code === "thread_paused" ? "paused" : "running");
    handleRefusal(error);
  });
});

ui.message.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    ui.composer.requestSubmit();
  }
});

ui.stop.addEventListener("click", () => {
  if (!state.threadId) return;
  const waiting = !state.running;
  api
    .cancelRun(state.threadId)
    // Stopping a pause ends the run at once: redraw the thread with its cancelled calls.
    .then(() => (waiting ? load() : undefined))
    .catch((error) => showNotice(error.message));
});

ui.newThread.addEventListener("click", () => {
  if (state.running) return;
  setThreadId(undefined);
  showNotice("");
  void load();
});

ui.language.addEventListener("click", () => {
  toggleLanguage();
  if (!state.running) void load();
  else {
    applyStaticLabels();
    choice.render();
  }
});

// A single sign-on hands its access token back in the URL fragment (never sent to a server): keep it, drop the fragment.
const signedIn = new URLSearchParams(window.location.hash.slice(1)).get("sso_token");
if (signedIn) {
  api.saveToken(signedIn);
  window.history.replaceState(null, "", window.location.pathname + window.location.search);
}
// The sign-in link shows in the token form when the server offers single sign-on.
fetch("/auth/config")
  .then((response) => (response.ok ? response.json() : { sso: false }))
  .then((config) => {
    byId("sso-login").hidden = !config.sso;
    // Signed out of a server that offers single sign-on: offer it at once, not after the first refusal.
    if (config.sso && !api.hasToken()) ui.tokenForm.hidden = false;
  })
  .catch(() => undefined);

ui.tokenForm.addEventListener("submit", (event) => {
  event.preventDefault();
  api.saveToken(ui.token.value.trim());
  ui.tokenForm.hidden = true;
  showNotice("");
  void load();
});

void load();
