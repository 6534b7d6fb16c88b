import { z } from "zod";
import { ActionRequestSchema, ReviewConfigSchema } from "./hitl.js";

/** A field the user is asked for, with allowed values where they are enumerated. */
export const MissingFieldSchema = z.object({
  name: z.string(),
  description: z.string(),
  enum: z.array(z.string()).optional(),
});

/** Why an egress call waits in a tainted thread, and what of its args came from tool results. */
export const EgressNoteSchema = z.object({
  sources: z.array(z.string()).describe("The untrusted tools whose content the thread read, first read first"),
  copied: z
    .array(
      z.object({
        field: z.string().describe("Where in the args, e.g. message or blocks[0].text"),
        text: z.string().describe("The copied text as it stands in the args"),
        from: z.string().describe("The tool whose result holds it"),
      }),
    )
    .describe("The parts of the args that also stand in untrusted tool results (12 characters or more)"),
});

/** Why an egress call waits in a tainted thread, and what of its args came from tool results. */
export type EgressNote = z.infer<typeof EgressNoteSchema>;

/** Who must approve a four-eyes call and who already did. */
export const PauseApprovalsSchema = z.object({
  required: z.number().int().min(1).describe("Distinct people who must approve these args before the call runs"),
  given: z
    .array(z.object({ userId: z.string(), role: z.string(), at: z.string().describe("ISO 8601 time of the approval") }))
    .describe("The approvals of the args shown, oldest first"),
  distinctFromRequester: z.boolean().describe("Whether the user who started the run is kept from approving"),
  requestedBy: z.string().optional().describe("The user whose message started the run"),
});

/** What a write will change, from a dry run the system behind the tool offers (a Kubernetes `dryRun=All`). */
export const CallPreviewSchema = z.object({
  changes: z
    .array(
      z.object({
        path: z.string().describe("The field, e.g. spec.replicas or spec.template.spec.containers[0].image"),
        from: z.unknown().describe("Its value now (null when absent)"),
        to: z.unknown().describe("Its value after the write (null when removed)"),
      }),
    )
    .describe("The fields that will change, as the dry run reported them"),
  note: z.string().optional().describe("What else the approver should know (a deleted pod's replacement)"),
  error: z.string().optional().describe("Why no dry run could be made: the call waits all the same"),
});

/** A write's dry-run preview. */
export type CallPreview = z.infer<typeof CallPreviewSchema>;

/** One call waiting for the user. */
export const WaitingCallSchema = z.object({
  callId: z.string(),
  tool: z.string(),
  args: z.record(z.string(), z.unknown()),
  argsHash: z.string(),
  risk: z.enum(["low", "high"]),
  missing: z.array(MissingFieldSchema).optional(),
  approvals: PauseApprovalsSchema.optional().describe(
    "Present when the tool's policy wants more than one approver or one other than the requester (four eyes)",
  ),
  egress: EgressNoteSchema.optional().describe(
    "Present when the call sends data out after the thread read untrusted content: it waits for that reason",
  ),
  preview: CallPreviewSchema.optional().describe(
    "Present when the tool made a dry run of these args: exactly what the write will change",
  ),
});

/** The approvals a four-eyes call shows. */
export type PauseApprovals = z.infer<typeof PauseApprovalsSchema>;

/**
 * What `interrupt()` receives and clients see (design §4): `confirm_risky` whenever a waiting
 * call is high risk, even when it also misses fields, so the form and the risk are one pause.
 */
export const PauseValueSchema = z.object({
  interruptId: z.string(),
  interruptType: z.enum(["params_required", "confirm_risky"]),
  reason: z.string(),
  calls: z.array(WaitingCallSchema).min(1),
  error: z.string().optional().describe("Why the previous answer to this pause was refused"),
  actionRequests: z
    .array(ActionRequestSchema)
    .optional()
    .describe("The waiting calls in LangChain's HITLRequest shape (absent in pauses saved before it was added)"),
  reviewConfigs: z.array(ReviewConfigSchema).optional().describe("What may be answered for each action request"),
  expiresAt: z
    .string()
    .optional()
    .describe(
      "ISO 8601 time the pause's approvals expire (the earliest of its high-risk calls' `approvals.expiresAfter`): then every waiting call is answered approval_expired and the run goes on; absent when they never expire",
    ),
});

/** The pause a client must answer. */
export type PauseValue = z.infer<typeof PauseValueSchema>;
/** One call waiting in a pause. */
export type WaitingCall = z.infer<typeof WaitingCallSchema>;

/** The user's answer for one waiting call. */
export const DecisionSchema = z
  .object({
    callId: z.string().min(1).describe("The waiting call this decision answers"),
    action: z.enum(["approve", "edit", "reject"]).describe("approve as shown, edit the args, or reject"),
    argsHash: z.string().optional().describe("The argsHash the client was shown; must match"),
    args: z.record(z.string(), z.unknown()).optional().describe("Replacement args (edit only)"),
    params: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("Values for the fields the pause lists as missing, and no others"),
    message: z.string().max(2000).optional().describe("A note from the user, e.g. why they rejected"),
  })
  .strict()
  .superRefine((decision, context) => {
    if (decision.action === "approve" && decision.args !== undefined) {
      context.addIssue({ code: "custom", message: "approve takes no args; changing them is an edit", path: ["args"] });
    }
    if (decision.action === "edit" && decision.args === undefined) {
      context.addIssue({ code: "custom", message: "edit needs args", path: ["args"] });
    }
  });

/** The resume value passed as `new Command({ resume })` (design §4). */
export const ResumeValueSchema = z.object({ decisions: z.array(DecisionSchema).min(1) }).strict();

/**
 * opspilot's own answer to a pause whose approvals expired: accepted only once the pause's
 * `expiresAt` has passed, it answers every waiting call `approval_expired` (decided by `SYSTEM_ACTOR`).
 */
export const ExpiryResumeSchema = z
  .object({ expire: z.object({ interruptId: z.string().min(1).describe("The pause that expired") }).strict() })
  .strict();

/** The expiry answer. */
export type ExpiryResume = z.infer<typeof ExpiryResumeSchema>;

/** One decision of a resume. */
export type Decision = z.infer<typeof DecisionSchema>;
/** The resume value. */
export type ResumeValue = z.infer<typeof ResumeValueSchema>;

/** A field the user is asked for. */
export type MissingField = z.infer<typeof MissingFieldSchema>;
