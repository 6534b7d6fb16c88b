// Whether new steps scroll into view: on while the reader is at the newest step; reading back up
// stops it and reaching the bottom again resumes it.
let following = true;

const nearBottom = () => window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 120;

window.addEventListener("scroll", () => (following = nearBottom()), { passive: true });

/** Brings new steps into view again (the user sent or answered something). */
export function followNewest() {
  following = true;
}

/** Brings the newest step in `log` into view (above the composer), or the pending pause when there is one. */
export function reveal(log, target) {
  window.requestAnimationFrame(() => {
    const pause = log.querySelector("form.pause");
    if (pause) return pause.scrollIntoView({ block: "start" });
    if (target === "newest" || following) window.scrollTo({ top: document.documentElement.scrollHeight });
  });
}
