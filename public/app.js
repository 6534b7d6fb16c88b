// The page's controller: thread id in the address, the thread list, live run streams (with the
// answer streaming in), pauses, Stop, a message sent while a run works or waits (queued or
// interrupting), and a reload that redraws the thread from its events.
import { threadIdFromAddress } from "./lib/address.js";
import * as api from "./lib/api.js";
import { apiErrorText, applyStaticLabels, t, toggleLanguage } from "./lib/i18n.js";
import { IncidentList } from "./lists/incidents.js";
import { IncidentRecord } from "./lists/incident-record.js";
import { Multitask } from "./thread/multitask.js";
import { answerNote } from "./thread/pause-notes.js";
import { QueuedMessages } from "./thread/queued.js";
import { followNewest } from "./lib/scroll.js";
import { SendChoice } from "./thread/send-choice.js";
import { listenForToken, takeSignIn } from "./lib/sign-in.js";
import { withPendingPause } from "./thread/run-follower.js";
import { RunStreams } from "./thread/streams.js";
import { ThreadPage } from "./thread/thread-page.js";
import { ThreadList } from "./lists/threads.js";
import { Transcript } from "./thread/transcript.js";

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
const transcript = new Transcript(ui.log, { loadResult: (callId) => api.getResult(page.threadId, callId) });
const queue = new QueuedMessages(transcript);
const choice = new SendChoice({ root: byId("send-choice"), composer: ui.message });
const threadList = new ThreadList({
  list: byId("thread-list"),
  panel: byId("threads-panel"),
  count: byId("waiting-count"),
  current: () => page.threadId,
  onRefused: (error) => handleRefusal(error),
});
const incidentList = new IncidentList({
  list: byId("incident-list"),
  panel: byId("incidents-panel"),
  count: byId("firing-count"),
  error: byId("incidents-error"),
  current: () => page.threadId,
});
const incidentRecord = new IncidentRecord({
  root: byId("incident-record"),
  timeline: byId("timeline-list"),
  postmortem: byId("postmortem-text"),
  download: byId("postmortem-download"),
  error: byId("incident-record-error"),
  log: ui.log,
});
const page = new ThreadPage({
  threadId: threadIdFromAddress(),
  transcript,
  queue,
  log: ui.log,
  onAnswer: answer,
  onPause: () => {
    ui.stop.hidden = false;
    refreshLists();
  },
  onRunEnd: refreshLists,
});
const streams = new RunStreams({ page, queue, setRunning, showNotice });
const multitask = new Multitask({
  page,
  streams,
  queue,
  transcript,
  choice,
  message: ui.message,
  // Only viewers are refused the incident list (403), and only viewers may not interrupt.
  canInterrupt: () => !incidentList.forbidden,
  onRefusal: (error) => handleRefusal(error),
  showNotice,
});

/** Whether a pause waits for an answer on the page. */
const paused = () => page.conversation.waiting !== undefined;

/** Reloads the conversations and the incidents beside them. */
function refreshLists() {
  void threadList.refresh();
  void incidentList.refresh();
  void incidentRecord.show(page.threadId);
}

function setRunning(running) {
  // Stop also ends a pause that waits for an answer, so it stays while one does.
  ui.stop.hidden = !running && !paused();
  document.body.dataset.running = String(running);
}

function showNotice(text) {
  ui.notice.textContent = text ?? "";
  ui.notice.hidden = !text;
}

/** Sends a pause's answer: the first event means the server took it, and the form becomes a note. */
function answer(slot, interrupt, resume, refuse) {
  let accepted = false;
  followNewest();
  const onEvent = (event) => {
    if (!accepted) slot.replaceChildren(answerNote(interrupt, resume));
    accepted = true;
    page.handle(event);
  };
  streams
    .run(() => api.streamResume(page.threadId, resume, onEvent))
    .catch((error) => (error instanceof api.ApiError ? handleRefusal(error, refuse) : refuse(String(error))));
}

function handleRefusal(error, show = showNotice) {
  if (error.status === 401) {
    ui.tokenForm.hidden = false;
    ui.token.focus();
  }
  show(apiErrorText(error.code) ?? error.message);
}

async function load() {
  applyStaticLabels();
  // Until the thread view says otherwise, no pause waits.
  page.conversation = withPendingPause(page.conversation, undefined);
  followNewest();
  ui.stop.hidden = !streams.running;
  choice.close({ focus: false });
  refreshLists();
  if (!page.threadId) {
    transcript.clear();
    queue.draw([]);
    transcript.showEmpty();
    return;
  }
  try {
    const view = await api.getThread(page.threadId);
    await page.showThread(view);
    // Another tab or a lost connection started this run, or queued messages wait: follow them from the records.
    if (view.status === "running" || (queue.pending && view.status !== "interrupted"))
      await streams.run(async () => {});
    if (view.unfinished) offerRecovery();
  } catch (error) {
    if (error.status === 401) return handleRefusal(error);
    // An unknown or foreign thread id: start afresh rather than failing every message.
    if (error.status === 404) page.setThreadId(undefined);
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
    streams.run((onEvent) => api.streamRecover(page.threadId, onEvent)).catch((error) => handleRefusal(error));
  });
  ui.notice.append(" ", button);
}

async function send(message) {
  if (!page.threadId) page.setThreadId(await api.createThread());
  const bubble = transcript.addUser(message);
  followNewest();
  page.reveal("newest");
  await streams
    .run((onEvent) => api.streamRun(page.threadId, message, onEvent))
    .catch((error) => {
      bubble.remove();
      throw error;
    });
}

ui.composer.addEventListener("submit", (event) => {
  event.preventDefault();
  const message = ui.message.value.trim();
  if (!message) return;
  if (streams.running || paused() || queue.pending) return multitask.offer(paused() ? "paused" : "running");
  ui.message.value = "";
  send(message).catch((error) => {
    if (!ui.message.value) ui.message.value = message;
    // Another tab or process started a run, or the page did not know of the pause.
    if (error instanceof api.ApiError && (error.code === "thread_busy" || error.code === "thread_paused"))
      return multitask.offer(error.code === "thread_paused" ? "paused" : "running");
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
  if (!page.threadId) return;
  const waiting = !streams.running;
  api
    .cancelRun(page.threadId)
    // Stopping a pause ends the run at once: redraw the thread with its cancelled calls.
    .then(() => (waiting ? load() : undefined))
    .catch((error) => showNotice(error.message));
});

ui.newThread.addEventListener("click", () => {
  if (streams.running) return;
  page.setThreadId(undefined);
  showNotice("");
  void load();
});

ui.language.addEventListener("click", () => {
  toggleLanguage();
  if (!streams.running) void load();
  else {
    applyStaticLabels();
    choice.render();
  }
});

takeSignIn({ tokenForm: ui.tokenForm, ssoLink: byId("sso-login") });
listenForToken(ui, () => {
  showNotice("");
  void load();
});

void load();
