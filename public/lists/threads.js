// The thread list: the user's own conversations and, for an operator or admin, the on-call team's (incidents,
// scheduled checks), those waiting first (`GET /api/threads?mine=1&shared=1`).
import * as api from "../lib/api.js";
import { coalesced, h } from "../lib/dom.js";
import { currentLanguage, t } from "../lib/i18n.js";

/** Draws the list into `list` (inside the `panel` disclosure) and the waiting count into `count`. */
export class ThreadList {
  constructor({ list, panel, count, current, onRefused }) {
    this.list = list;
    // Told when the server refuses the list (401: it wants a token), so the page asks for one at once.
    this.onRefused = onRefused;
    this.panel = panel;
    this.count = count;
    this.current = current;
    // Open beside the conversation on wide screens; one line above it on phones.
    const wide = window.matchMedia("(min-width: 64rem)");
    this.panel.open = wide.matches;
    wide.addEventListener("change", (event) => (this.panel.open = event.matches));
  }

  /** Reloads the list; calls made while one is loading share the next load. */
  refresh() {
    this.refreshOnce ??= coalesced(() => this.load());
    return this.refreshOnce();
  }

  async load() {
    let threads;
    try {
      threads = await api.listThreads();
    } catch (error) {
      // Without a token the page asks for one; while the server is away the list stays as it was.
      if (error instanceof api.ApiError && error.status === 401) this.onRefused?.(error);
      return;
    }
    this.render(threads);
  }

  render(threads) {
    const waiting = threads.filter((thread) => thread.waitingForYou).length;
    this.count.textContent = waiting > 0 ? t("waitingCount", { n: waiting }) : "";
    this.count.hidden = waiting === 0;
    if (threads.length === 0) {
      this.list.replaceChildren(h("li", { class: "muted", text: t("threadsEmpty") }));
      return;
    }
    const current = this.current();
    this.list.replaceChildren(
      ...threads.map((thread) => {
        const badge = thread.waitingForYou
          ? h("span", { class: "badge waiting", text: t("waitingForYou") })
          : thread.status === "running"
            ? h("span", { class: "badge running", text: t("threadRunning") })
            : null;
        return h(
          "li",
          { dataset: { threadId: thread.threadId, waiting: String(thread.waitingForYou) } },
          h(
            "a",
            {
              href: threadHref(thread.threadId),
              "aria-current": thread.threadId === current ? "page" : undefined,
            },
            h("span", { class: "thread-title", text: thread.title || t("untitled") }),
            h(
              "span",
              { class: "thread-meta" },
              badge,
              h("time", { datetime: thread.updatedAt, text: shortTime(thread.updatedAt) }),
            ),
          ),
        );
      }),
    );
  }
}

/** The page's own link to a thread (`/?thread=<id>`), as a conversation or an incident notice opens it. */
export function threadHref(threadId) {
  const url = new URL(location.href);
  url.hash = "";
  url.search = "";
  url.searchParams.set("thread", threadId);
  return `${url.pathname}${url.search}`;
}

/** A short local time: the clock today, else the date (with the clock too when `withClock`). */
export function shortTime(iso, { withClock = false } = {}) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso ?? "");
  const locale = currentLanguage() === "zh" ? "zh-CN" : "en-US";
  const clock = { hour: "2-digit", minute: "2-digit" };
  if (new Date().toDateString() === date.toDateString()) return date.toLocaleTimeString(locale, clock);
  return date.toLocaleString(locale, { month: "short", day: "numeric", ...(withClock ? clock : {}) });
}
