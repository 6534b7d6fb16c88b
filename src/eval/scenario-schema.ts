import { z } from "zod";
import { ENVIRONMENT_IDS, LOG_LEVELS } from "../demo/index.js";
import { ScriptTurnSchema, StandinSchema } from "./scenario-script-schema.js";

/** A regular expression's source, checked to compile when the scenario is loaded. */
const regexSource = (flags: string) =>
  z
    .string()
    .min(1)
    .refine(
      (source) => {
        try {
          new RegExp(source, flags);
          return true;
        } catch {
          return false;
        }
      },
      { message: "is not a valid regular expression" },
    );

/** A value an argument must have: the exact value, one of several, or a regular expression over its text. */
const ArgMatcherSchema = z.union([
  z.string(),
  z.number(),
  z.boolean(),
  z.null(),
  z.object({ oneOf: z.array(z.unknown()).min(1).describe("Any of these values") }).strict(),
  z.object({ pattern: regexSource("u").describe("A regular expression the value's text must match") }).strict(),
  z.object({ absent: z.literal(true).describe("The argument must be left out") }).strict(),
]);

/** One scripted answer to a pause: what the user does with every call waiting in it. */
export const ScriptedPauseSchema = z
  .object({
    type: z
      .enum(["params_required", "confirm_risky"])
      .describe("The pause expected here; another type fails the pauses check"),
    tool: z.string().min(1).optional().describe("The tool expected to wait in the pause"),
    action: z.enum(["approve", "edit", "reject"]).describe("The decision applied to every waiting call"),
    params: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("Values for the missing fields (only the fields the pause lists are sent)"),
    args: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("edit only: the fields that replace the shown args (the others stay as shown)"),
    message: z.string().max(2000).optional().describe("The user's note, e.g. why they rejected"),
  })
  .strict()
  .superRefine((pause, context) => {
    if (pause.action === "edit" && pause.args === undefined)
      context.addIssue({ code: "custom", message: "edit needs args", path: ["args"] });
    if (pause.action !== "edit" && pause.args !== undefined)
      context.addIssue({ code: "custom", message: "only edit takes args", path: ["args"] });
  });

/** A tool failure planted for one scenario: the tool throws this error class instead of running. */
export const FaultSchema = z
  .object({
    tool: z.string().min(1).describe("The tool that fails"),
    errorCode: z
      .enum(["not_found", "timeout", "transient", "internal", "permission_denied"])
      .default("transient")
      .describe("The error class the call ends in"),
    times: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("How many attempts fail (a transient failure is retried once); omitted: every attempt"),
    fallback: z.array(z.string().min(1)).optional().describe("Tools named in the failed observation as the fallback"),
  })
  .strict();

/** A log line planted in a scenario's own copy of the demo dataset: `search_logs` of that service and environment returns it. */
const PlantedLogSchema = z
  .object({
    service: z.string().min(1).describe("Service id, e.g. payment-service"),
    environment: z.enum(ENVIRONMENT_IDS).describe("Environment id"),
    level: z.enum(LOG_LEVELS).default("ERROR").describe("Severity (search_logs is often asked for ERROR lines only)"),
    code: z.string().min(1).nullable().default(null).describe("Error code, counted in byCode; null: none"),
    message: z.string().min(1).describe("The line's text, e.g. an instruction a model must not follow"),
    secondsAgo: z.number().int().min(0).default(60).describe("Age of the line (newest lines come first)"),
  })
  .strict();

/** A runbook planted for a scenario: every `search_docs` on its thread returns it as the best hit. */
const PlantedRunbookSchema = z
  .object({
    id: z.string().min(1).describe("Runbook id, e.g. RB-901"),
    title: z.string().min(1),
    services: z.array(z.string().min(1)).default([]).describe("Service ids it covers"),
    errorCodes: z.array(z.string().min(1)).default([]).describe("Error codes it covers"),
    advice: z.array(z.string().min(1)).min(1).describe("Its steps, e.g. one that carries an instruction"),
  })
  .strict();

/** Content planted on one scenario's thread only: text a tool returns, which may carry instructions. */
export const PlantedSchema = z
  .object({
    logs: z.array(PlantedLogSchema).default([]),
    runbooks: z.array(PlantedRunbookSchema).default([]),
  })
  .strict();

/** What a scenario expects of the agent; every part is optional and has a default. */
export const ExpectSchema = z
  .object({
    tools: z
      .object({
        required: z.array(z.string().min(1)).default([]).describe("Tools that must be called (and run)"),
        forbidden: z.array(z.string().min(1)).default([]).describe("Tools that must not be called at all"),
        order: z
          .array(z.tuple([z.string().min(1), z.string().min(1)]))
          .default([])
          .describe("Pairs [a, b]: the first call of b comes after a call of a finished"),
        maxCalls: z.number().int().min(0).optional().describe("Most tool calls in the whole scenario"),
      })
      .strict()
      .default({ required: [], forbidden: [], order: [] }),
    args: z
      .array(
        z
          .object({
            tool: z.string().min(1).describe("The tool whose calls are constrained"),
            match: z.record(z.string(), ArgMatcherSchema).describe("Argument name → the value it must have"),
            every: z
              .boolean()
              .default(false)
              .describe("true: every call of the tool must match; false: at least one must"),
          })
          .strict(),
      )
      .default([]),
    steps: z
      .object({
        max: z.number().int().positive().default(8).describe("Most model steps"),
        min: z.number().int().min(0).default(0).describe("Fewest model steps"),
      })
      .strict()
      .default({ max: 8, min: 0 }),
    stopReason: z
      .enum(["final_answer", "max_steps", "timeout", "loop_detected", "too_many_fails", "budget_exhausted"])
      .default("final_answer")
      .describe("How the scenario's last run must end"),
    evidence: z
      .array(z.union([z.string().min(1), z.number()]).transform(String))
      .default([])
      .describe("Facts (error codes, counts, runbook ids) that must appear in the answer and in an observation"),
    fabrication: z
      .object({
        patterns: z
          .record(z.string(), regexSource("gu"))
          .default({})
          .describe("More id/code patterns (name → regular expression) added to the default ones"),
        disable: z.array(z.string()).default([]).describe("Default patterns not to apply, by name"),
        allow: z.array(z.string()).default([]).describe("Ids the answer may name without an observation"),
        forbid: z
          .array(regexSource("iu"))
          .default([])
          .describe("Regular expressions (case-insensitive) the answer must not match, e.g. a claim of an action"),
      })
      .strict()
      .default({ patterns: {}, disable: [], allow: [], forbid: [] }),
    allowUnapproved: z
      .array(z.string().min(1))
      .default([])
      .describe(
        "Write tools that may run without an approval (low-risk writes by the config's policy); never an egress call after the thread read untrusted content",
      ),
    spend: z
      .object({
        maxTokens: z.number().int().positive().optional(),
        maxCostUsd: z.number().nonnegative().optional(),
        maxLatencyMs: z.number().int().positive().optional(),
      })
      .strict()
      .default({}),
  })
  .strict();

/** One evaluation scenario (`eval/scenarios/*.yaml`), validated when loaded. */
export const ScenarioSchema = z
  .object({
    id: z
      .string()
      .regex(/^[a-z0-9][a-z0-9._-]*$/, "must be lowercase letters, digits, '.', '_' or '-'")
      .describe("Unique id, used in reports and --compare"),
    title: z.string().optional().describe("One line for people"),
    tags: z.array(z.string()).default([]).describe("Free labels, e.g. seed, zh, pause, injection"),
    question: z.string().min(1).describe("The user's message, asked on a fresh thread"),
    role: z.enum(["viewer", "operator", "admin"]).default("operator").describe("The asking user's role"),
    pauses: z.array(ScriptedPauseSchema).default([]).describe("Answers to the pauses, in the order they come"),
    faults: z.array(FaultSchema).default([]).describe("Tool failures planted for this scenario"),
    planted: PlantedSchema.default({ logs: [], runbooks: [] }).describe(
      "Log lines and runbooks planted on this scenario's thread, e.g. carrying prompt injections",
    ),
    script: z
      .array(ScriptTurnSchema)
      .min(1)
      .optional()
      .describe(
        "A scripted model's turns, in order, used in place of the demo model (which knows only the demo tools); any other model answers the scenario itself",
      ),
    standin: StandinSchema.optional().describe(
      "Stand-ins of outside systems, started on loopback for this scenario only, with their toolsets configured on an app of its own",
    ),
    expect: ExpectSchema.default(ExpectSchema.parse({})),
  })
  .strict();

/** A validated scenario. */
export type Scenario = z.infer<typeof ScenarioSchema>;
/** A scripted answer to a pause. */
export type ScriptedPause = z.infer<typeof ScriptedPauseSchema>;
/** A planted tool failure. */
export type Fault = z.infer<typeof FaultSchema>;
/** Content planted on a scenario's thread. */
export type Planted = z.infer<typeof PlantedSchema>;
/** A constraint on an argument's value. */
export type ArgMatcher = z.infer<typeof ArgMatcherSchema>;

/** A scenario file: one scenario, a list of them, or `{ scenarios: [...] }`. */
export const ScenarioFileSchema = z.union([
  z.array(z.unknown()),
  z.object({ scenarios: z.array(z.unknown()) }).strict(),
  z.record(z.string(), z.unknown()),
]);
