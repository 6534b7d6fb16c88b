import { z } from "zod";
import { endpointFields } from "./toolset-endpoint-schema.js";

/** GitHub's REST API and the repository the follow-up issues are filed in. */
export const GithubToolsetSchema = z
  .object({
    ...endpointFields({ url: "https://api.github.com", token: "GITHUB_TOKEN" }),
    url: z
      .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
      .default("https://api.github.com")
      .describe("Base URL of GitHub's REST API (GitHub Enterprise: https://github.example.com/api/v3)"),
    repo: z
      .string()
      .regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, { error: "must be owner/name, e.g. acme/payments" })
      .describe("The repository follow-up issues are filed in, as owner/name"),
    labels: z
      .array(z.string().min(1).max(50))
      .max(10)
      .optional()
      .describe('Labels every filed issue gets, e.g. ["incident-follow-up"]'),
  })
  .strict();

/** The configured GitHub toolset. */
export type GithubToolset = z.infer<typeof GithubToolsetSchema>;
