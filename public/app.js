// The page's controller: thread id in the address, live run streams, pauses, Stop, reload.
import { putThreadIdInAddress, threadIdFromAddress } from "./address.js";
import * as api from "./api.js";
import { apiErrorText, applyStaticLabels, t, toggleLanguage } from "./i18n.js";
import { answerNote, renderPause } from "./pause.js";
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
const transcript = new Transcript(ui.log);
const state = {
  threadId: threadIdFromAddress(),
  seen: new Set(),
  lastSeq: 0,
  finished: false,
  running: false,
  paused: false,
  current: undefined,
};

function setThreadId(threadId) {
  state.threadId = threadId;
  state.seen.clear();
  state.lastSeq = 0;
  putThreadIdInAddress(threadId);
}

function setRunning(running) {
  state.running = running;
  // Stop also ends a pause that waits for an answer.
  ui.stop.hidden = !running && !state.paused;
  ui.send.disabled = running;
  document.body.dataset.running = String(running);
}

function showNotice(text) {
  ui.notice.textContent = text ?? "";
  ui.notice.hidden = !text;
}

/** Renders one event once: events are deduplicated by their per-thread sequence number. */
function handleEvent(event) {
  if (event.threadId !== state.threadId || state.seen.has(event.seq)) return;
  state.seen.add(event.seq);
  state.lastSeq = Math.max(state.lastSeq, event.seq);
  const atBottom = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 80;
  renderEvent(event);
  if (atBottom) window.scrollTo({ top: document.documentElement.scrollHeight });
}

function renderEvent(event) {
  switch (event.type) {
    case "run_started":
      return transcript.started(event.runId);
    case "tool_call":
      return void transcript.toolCall(event.runId, event);
    case "tool_result":
      return transcript.toolResult(event.runId, event);
    case "assistant_message":
      return transcript.assistant(event.runId, event.content);
    case "loop_interrupt":
      return showPause(transcript.paused(event.runId, event), event);
    case "run_finished":
      state.finished = true;
      return transcript.finished(event.runId, event);
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
  state.paused = false;
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
    showNotice("");
  } finally {
    setRunning(false);
  }
}

/**
 * Follows a run the page is not streaming: recorded events after the last one shown, until
 * the thread stops running. Without any event shown yet, redraws the history at the end.
 */
async function catchUp() {
  for (;;) {
    const view = await api.getThread(state.threadId);
    if (state.lastSeq > 0) for (const event of await api.eventsAfter(state.threadId, state.lastSeq)) handleEvent(event);
    if (view.status !== "running" || state.finished) {
      if (state.lastSeq === 0) showHistory(view);
      return;
    }
    await sleep(1000);
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function showPause(slot, interrupt) {
  state.paused = true;
  ui.stop.hidden = false;
  renderPause(slot, interrupt, (resume, refuse) => {
    let accepted = false;
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
}

function handleRefusal(error, show = showNotice) {
  if (error.status === 401) {
    ui.tokenForm.hidden = false;
    ui.token.focus();
  }
  show(apiErrorText(error.code) ?? error.message);
}

function showHistory(view) {
  const slot = transcript.renderHistory(view);
  if (slot) showPause(slot, view.interrupt);
}

async function load() {
  applyStaticLabels();
  state.paused = false;
  ui.stop.hidden = !state.running;
  if (!state.threadId) {
    transcript.clear();
    transcript.showEmpty();
    return;
  }
  try {
    const view = await api.getThread(state.threadId);
    showHistory(view);
    // Another tab or a lost connection started this run: follow it from its records.
    if (view.status === "running") await runStream(async () => {});
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
  await runStream((onEvent) => api.streamRun(state.threadId, message, onEvent)).catch((error) => {
    bubble.remove();
    throw error;
  });
}

ui.composer.addEventListener("submit", (event) => {
  event.preventDefault();
  const message = ui.message.value.trim();
  if (!message || state.running) return;
  ui.message.value = "";
  send(message).catch((error) => {
    if (!ui.message.value) ui.message.value = message;
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
  else applyStaticLabels();
});

ui.tokenForm.addEventListener("submit", (event) => {
  event.preventDefault();
  api.saveToken(ui.token.value.trim());
  ui.tokenForm.hidden = true;
  showNotice("");
  void load();
});

void load();
