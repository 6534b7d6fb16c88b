import type { DurationUnit, LoopWords } from "./types.js";

const UNIT_NAMES: Record<DurationUnit, [one: string, many: string]> = {
  d: ["day", "days"],
  h: ["hour", "hours"],
  m: ["minute", "minutes"],
  s: ["second", "seconds"],
};

/** The loop's words in English. */
export const ENGLISH: LoopWords = {
  stopTitle: {
    max_steps: "I stopped because the step limit was reached.",
    timeout: "I stopped because the time limit was reached.",
    loop_detected: "I stopped because I was repeating the same calls.",
    too_many_fails: "I stopped because the tools kept failing.",
    budget_exhausted: "I stopped because the run's budget is spent.",
    cancelled: "The run was cancelled.",
    error: "Sorry, this run hit an internal error and stopped.",
  },
  stopped: "The run stopped.",
  nothingFound: "Nothing useful was found so far.",
  foundSoFar: "What I found so far:\n",
  nextStep: {
    limit: "You can rephrase, narrow the question, or raise the limit and ask again.",
    rephrase: "You can rephrase or narrow the question and ask again.",
    cancelled: "Ask again whenever you are ready.",
    error: "You can try again.",
  },
  limits: {
    maxSteps: (limit) => `It reached the limit of ${limit} steps.`,
    timeout: (limitMs) => `It ran longer than the ${limitMs} ms limit.`,
    tokens: (tokens) => `It spent its token budget (${tokens} tokens).`,
    cost: (costUsd) => `It spent its cost budget ($${costUsd.toFixed(4)}).`,
    failedSteps: (steps) => `Tools failed ${steps} times in a row.`,
    identicalCalls: (times) => `The same calls were proposed ${times} times in a row.`,
    alternation: "The calls alternated between two sets (A→B→A→B).",
    cycle: (length, example) => `The calls went round a cycle of ${length} sets (${example}).`,
    approvalPauses: (limit) =>
      `It already asked for approval ${limit} times in this run and proposed another action that needs approval.`,
  },
  runCancelled: "The run was cancelled.",
  runFailed: "the run failed.",
  model: {
    credentials: "The model endpoint refused the credentials (check OPENAI_API_KEY or ANTHROPIC_API_KEY).",
    rejected: (status) => `The model endpoint rejected the request (HTTP ${status}).`,
    rateLimited: "The model endpoint kept rate-limiting the request, even after retries.",
    timedOut: "The model endpoint did not answer in time.",
    unreachable: "The model endpoint could not be reached.",
    endsHere: "This run ends here; please try again later.",
    contextFull:
      "The model refused the request as longer than its context window, even after older steps were folded into " +
      "working memory and the request was compacted once more. This run ends here. Ask again: the next question on " +
      "this thread starts from a compact context. If it keeps happening, set OPSPILOT_CONTEXT_TOKENS to the " +
      "model's real window.",
    emptyReply: "The model returned an empty reply, so this run ends here. Please rephrase and try again.",
  },
  duration: (count, unit) => `${count} ${UNIT_NAMES[unit][count === 1 ? 0 : 1]}`,
  pause: {
    listSeparator: ", ",
    reasonSeparator: "; ",
    withApprovals: (reason, approvals) => `${reason} ${approvals}.`,
    highRisk: (tool) => `${tool} is a high-risk action; approve, edit or reject it.`,
    needs: (tool, fields) => `${tool} needs: ${fields}`,
    needsThenEgress: (tool, fields, egress) => `${tool} needs: ${fields}. ${egress}`,
    finalArgs: "high-risk action: approve the final args, edit or reject it.",
    reasonAndFinalArgs: (reason, tool, finalArgs) => `${reason} ${tool} is a ${finalArgs}`,
    needsAndFinalArgs: (tool, fields, finalArgs) => `${tool} needs: ${fields}; it is a ${finalArgs}`,
    approvals: (names, required, requester) => {
      const who = names.length > 0 ? ` (${names.join(", ")})` : "";
      const not = requester ? `; ${requester}, who asked, cannot approve` : "";
      return `${names.length} of ${required} approval${required === 1 ? "" : "s"}${who}${not}`;
    },
    egress: (tool, shown, total) => {
      const more = total - shown.length;
      const list =
        shown.length === 1
          ? shown[0]!
          : `${shown.slice(0, -1).join(", ")} and ${shown.at(-1)}${more > 0 ? ` (and ${more} more)` : ""}`;
      const source =
        shown.length === 1 ? "a source that may carry instructions" : "sources that may carry instructions";
      return `${tool} sends data out after the thread read content from ${list}, ${source}; approve, edit or reject it.`;
    },
    expired: (tool, within, approval) =>
      approval
        ? `No one approved ${tool} within ${within}.`
        : `No one answered ${tool} within ${within}: the pause it waited in expired.`,
    rejected: (tool, note) => `The user rejected this ${tool} call${note ? `: ${note}` : "."}`,
    stoppedWhileWaiting: "the run was stopped while it waited for you.",
    superseded: "a new message superseded the pause.",
  },
};
