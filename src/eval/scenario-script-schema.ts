import { z } from "zod";

/** One tool call a scripted model turn proposes. */
const ScriptedCallSchema = z
  .object({
    tool: z.string().min(1).describe("The tool to call"),
    args: z.record(z.string(), z.unknown()).default({}).describe("Its arguments"),
  })
  .strict();

/** One turn of a scripted model: tool calls to propose, or the final answer. */
export const ScriptTurnSchema = z.union([
  z
    .object({
      calls: z.array(ScriptedCallSchema).min(1).describe("Tool calls proposed together in one step"),
      text: z.string().optional().describe("What the model says beside them"),
    })
    .strict(),
  z.object({ answer: z.string().min(1).describe("The final answer (no tool calls)") }).strict(),
]);

/** The stand-ins of outside systems a scenario may run against (test/fixtures), by system. */
export const StandinSchema = z
  .object({
    kubernetes: z
      .enum(["default"])
      .describe(
        "The Kubernetes stand-in's cluster (test/fixtures/kubernetes-scenario.ts): namespace payments with a bad rollout in CrashLoopBackOff, an OOMKill, an ImagePullBackOff, an HPA at its maximum and a node under memory pressure; full RBAC",
      ),
  })
  .strict();

/** A scripted model turn. */
export type ScriptTurn = z.infer<typeof ScriptTurnSchema>;
/** The stand-ins a scenario names. */
export type Standin = z.infer<typeof StandinSchema>;
