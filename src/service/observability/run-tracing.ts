import {
  context,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
  type SpanContext,
  type Tracer,
} from "@opentelemetry/api";
import type { RunEvent } from "../../contracts/events.js";
import type { Logger } from "./logger.js";

/** What the spans say of the model (`gen_ai.provider.name`, `gen_ai.request.model`). */
export interface TracedModel {
  provider: string;
  name: string;
}

/** How runs become spans. */
export interface RunTracingOptions {
  tracer: Tracer;
  model: TracedModel;
  /** Record prompts, answers, arguments and results (as the events mask them); off by default. */
  captureContent?: boolean;
  /** The MCP server a tool comes from, if any. */
  serverOf?: (tool: string) => string | undefined;
  /** Where a failure to make a span is logged (it never reaches the run). */
  logger: Logger;
}

/** Turns a run's events into OpenTelemetry spans as they happen. */
export interface RunTracing {
  observe(event: RunEvent): void;
}

/** Paused threads remembered for the link from their resume, and their calls' args (the oldest are forgotten first). */
const REMEMBERED_PAUSES = 1_000;

/**
 * Spans after the OpenTelemetry GenAI conventions, from the events every run streams: one
 * `invoke_agent opspilot` span per run (a resumed run is a new span, in a new trace, linked
 * to the span of the run that paused), a `chat {model}` span per model call and an
 * `execute_tool {name}` span per tool call under it, with the pause, each approval and the
 * resume as span events. Model calls and tool calls are timed by the durations the events
 * carry. Content is left out unless `captureContent`, and then it is the events' (masked).
 * A failure here is logged and never reaches the run.
 */
export function createRunTracing(options: RunTracingOptions): RunTracing {
  const { tracer, model } = options;
  const runs = new Map<string, Span>();
  const paused = new Map<string, SpanContext>();
  const approvalsTold = new Map<string, Set<string>>();
  // The args of calls still to run, per thread (capture mode): a paused call's run ends before its result.
  const argsOf = new Map<string, Map<string, unknown>>();
  const capture = options.captureContent === true;

  const child = (run: Span, name: string, startTime: number, attributes: Attributes) =>
    tracer.startSpan(name, { startTime, attributes }, trace.setSpan(context.active(), run));

  function modelCall(
    run: Span,
    step: NonNullable<Extract<RunEvent, { type: "tool_call" }>["model"]>,
    finish: string,
    output?: string,
  ) {
    const now = Date.now();
    const span = child(run, `chat ${model.name}`, now - step.latencyMs, {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": model.provider,
      "gen_ai.request.model": model.name,
      "gen_ai.response.model": model.name,
      "gen_ai.usage.input_tokens": step.inputTokens,
      "gen_ai.usage.output_tokens": step.outputTokens,
      "gen_ai.response.finish_reasons": [finish],
      "opspilot.step": step.step,
      "opspilot.cost_usd": step.costUsd,
      "opspilot.model.retries": step.retries ?? 0,
      ...(capture && output !== undefined
        ? {
            "gen_ai.output.messages": JSON.stringify([
              { role: "assistant", parts: [{ type: "text", content: output }] },
            ]),
          }
        : {}),
    });
    span.end(now);
  }

  function observe(event: RunEvent): void {
    const run = runs.get(event.threadId);
    switch (event.type) {
      case "run_started": {
        const link = event.resumed ? paused.get(event.threadId) : undefined;
        const span = tracer.startSpan("invoke_agent opspilot", {
          root: true,
          links: link ? [{ context: link, attributes: { "opspilot.link": "resumes" } }] : [],
          attributes: {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": "opspilot",
            "gen_ai.conversation.id": event.threadId,
            "opspilot.run.id": event.runId,
            "opspilot.run.resumed": event.resumed === true,
          },
        });
        if (event.resumed) span.addEvent("resume");
        runs.set(event.threadId, span);
        return;
      }
      case "tool_call":
        if (!run) return;
        if (event.model) modelCall(run, event.model, "tool_calls");
        if (capture) remember(argsOf, event.threadId, new Map()).set(event.callId, event.args);
        return;
      case "assistant_message":
        if (run && event.model) modelCall(run, event.model, "stop", capture ? event.content : undefined);
        return;
      case "tool_result": {
        if (!run) return;
        const now = Date.now();
        const args = event.args ?? argsOf.get(event.threadId)?.get(event.callId);
        argsOf.get(event.threadId)?.delete(event.callId);
        const server = options.serverOf?.(event.tool);
        const span = child(run, `execute_tool ${event.tool}`, now - event.durationMs, {
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": event.tool,
          "gen_ai.tool.call.id": event.callId,
          "opspilot.tool.outcome": event.ok ? "ok" : (event.errorCode ?? "error"),
          "opspilot.tool.duration_ms": event.durationMs,
          ...(event.errorCode ? { "error.type": event.errorCode } : {}),
          ...(server ? { "opspilot.mcp.server": server } : {}),
          ...(capture && args !== undefined ? { "gen_ai.tool.call.arguments": JSON.stringify(args) } : {}),
          ...(capture ? { "gen_ai.tool.call.result": event.summary } : {}),
        });
        if (!event.ok) span.setStatus({ code: SpanStatusCode.ERROR, message: event.errorCode ?? "error" });
        if (event.decision) {
          const approval = {
            "gen_ai.tool.call.id": event.callId,
            "opspilot.approval.action": event.decision.action,
            "opspilot.approval.by": event.decision.by,
            ...(event.decision.approvers ? { "opspilot.approval.approvers": event.decision.approvers } : {}),
          };
          span.setAttributes(approval);
          run.addEvent("approval", approval);
        }
        span.end(now);
        return;
      }
      case "loop_interrupt": {
        if (!run) return;
        // A four-eyes call pauses again after each approval but the last: each approval is told once, as it is given.
        const told = remember(approvalsTold, event.threadId, new Set<string>());
        for (const call of event.calls)
          for (const given of call.approvals?.given ?? []) {
            const key = `${call.callId}\n${given.userId}\n${given.at}`;
            if (told.has(key)) continue;
            told.add(key);
            run.addEvent("approval", {
              "gen_ai.tool.call.id": call.callId,
              "opspilot.approval.action": "approve",
              "opspilot.approval.by": given.userId,
              "opspilot.approval.given": call.approvals!.given.length,
              "opspilot.approval.required": call.approvals!.required,
            });
          }
        run.addEvent("pause", {
          "opspilot.interrupt.id": event.interruptId,
          "opspilot.interrupt.type": event.interruptType,
          "opspilot.interrupt.tools": event.calls.map((call) => call.tool),
        });
        return;
      }
      case "run_finished": {
        if (!run) return;
        runs.delete(event.threadId);
        run.setAttributes({
          "opspilot.stop_reason": event.stopReason,
          "opspilot.run.steps": event.steps,
          ...(event.tokens !== undefined ? { "opspilot.run.tokens": event.tokens } : {}),
          ...(event.costUsd !== undefined ? { "opspilot.run.cost_usd": event.costUsd } : {}),
        });
        if (event.stopReason === "error")
          run.setStatus({ code: SpanStatusCode.ERROR, message: "the run ended in error" });
        if (event.stopReason === "interrupted") remember(paused, event.threadId, run.spanContext(), true);
        else {
          argsOf.delete(event.threadId);
          approvalsTold.delete(event.threadId);
        }
        run.end();
        return;
      }
      default: {
        const _exhaustive: never = event;
        return _exhaustive;
      }
    }
  }

  return {
    observe(event) {
      try {
        observe(event);
      } catch (error) {
        options.logger.error("tracing: could not record a span", error);
      }
    },
  };
}

/**
 * The thread's entry of `map`, set to `value` when absent (or when `replace`); past
 * `REMEMBERED_PAUSES` threads the oldest entry is forgotten.
 */
function remember<T>(map: Map<string, T>, threadId: string, value: T, replace = false): T {
  const known = map.get(threadId);
  if (known !== undefined && !replace) return known;
  map.delete(threadId);
  map.set(threadId, value);
  if (map.size > REMEMBERED_PAUSES) map.delete(map.keys().next().value!);
  return value;
}
