import { MAX_MESSAGE_CHARS } from "../contracts/limits.js";

/** The text of `--help`. */
export const USAGE = `opspilot — ask the operations assistant from a terminal

Usage:
  npm run ask -- "question"                  ask on a new thread; prints each step, the answer, the stop reason and the thread id
  npm run ask -- --thread <id> "question"    continue the conversation of a thread
  npm run ask -- --thread <id>               answer its pause (asks in place on a terminal) or recover an unfinished run
  npm run ask -- --thread <id> --param environment=prod | --approve | --edit '<json>' | --reject "reason"
  npm run chat [-- --thread <id>]            a conversation on one thread, one question per line
                                             (commands: /help, /thread, /new, /exit)
  npm run ask -- --tools                     list every tool with its effective policy and the config file read (--json for JSON)
  npm run ask -- --call <tool> '<json>'      run one tool with no model, through the same checks as a model's call:
                                             a read prints its observation; a write or high-risk call pauses as usual
                                             (or add --approve, and --param for asked fields); exit 0 ran, 1 failed, 2 refused

Answering a pause (with --thread):
  -p, --param name=value   fill a missing field (repeatable); the value must be one of the allowed values
      --approve            run the waiting call(s) exactly as shown; required for high-risk calls
      --edit '<json>'      run the waiting call with these args instead (one waiting call)
      --reject ["reason"]  refuse the waiting call(s); the reason is optional
      --resume '<json>'    a whole resume value {"decisions":[{"callId":...,"action":...}]}, call by call
      --no-model           answer without a model: the calls' observations are the answer (the pause of a --call)
  The printed "To answer" commands repeat this run's --user, --role, limit flags and --no-model.

Options:
  -t, --thread <id>        thread to continue, resume or recover
      --json               print the run's events as JSON lines (run_started, tool_call, tool_result,
                           assistant_message, loop_interrupt, run_finished) and nothing else on stdout;
                           in scripts use npm run --silent ask -- --json ... (npm prints a header otherwise)
      --no-input           never prompt: at a pause print how to resume and exit 0 (default for ask without a TTY)
      --role <role>        viewer, operator or admin (default admin: your own machine)
      --user <id>          the user who owns the threads (default local)
      --profile <name>     a profile of the config file's "profiles" (e.g. quick, investigate, change)
      --max-steps <n>      model turns with tool calls before the run stops (1-100, default 8)
      --max-time <time>    active time before the run stops: 90s, 2m, 1500ms (a bare number is seconds)
      --token-budget <n>   tokens the run may spend
      --cost-budget <usd>  dollars the run may spend (needs OPSPILOT_PRICE_*_PER_MTOK)
                           Limits may only tighten the OPSPILOT_* ceilings; above one, exit 2
      --multitask <how>    a question to a running or paused thread: enqueue (wait in the queue),
                           interrupt (stop the run or close the pause, then send) or reject (default);
                           without it a terminal or a chat asks w/i/c
      --tools              list the tools: kind, risk, roles, asked fields, timeout, rate limit, fallback,
                           source and whether the server is up, with the config file's overrides applied
  -h, --help               show this help

On a terminal the answer is printed as the model writes it; piped or with --json, only whole messages.
chat reads a pause's answers like its questions: typed, or the next lines of piped input (a field's value,
then a/e/r for a high-risk call; /exit leaves the pause waiting). With --no-input or --json it stops at the
first pause instead, says the lines after it were not read, and prints how to answer.
Messages are at most ${MAX_MESSAGE_CHARS} characters (the same limit as the HTTP API).
Ctrl-C during a run cancels it (stop reason "cancelled"); press it twice to quit at once.
Settings come from the environment (see .env.example): OPSPILOT_DB (default ./.opspilot/opspilot.sqlite),
OPSPILOT_MODEL (default "demo", offline), OPSPILOT_CONFIG (the config file: tools, MCP servers, policies). Colors only on a terminal; NO_COLOR turns them off.

Exit codes: 0 answered or paused (a pause waits for you, it is not an error) · 1 the run failed ·
2 bad usage, bad configuration or a refused request (nothing changed) · 130 cancelled with Ctrl-C.`;
