import type { z } from "zod";

/** How `formatZodIssues` names the place of each issue. */
export interface IssueFormat {
  /** Name of the whole value, for issues without a path; omitted, such issues show only their message. */
  root?: string;
  /** Between the path and the message (": " by default; " " reads as "KEY must be ..."). */
  separator?: string;
}

/** Zod issues as one line a person (or the model) can act on: `path: message` per issue, joined by "; ". */
export function formatZodIssues(error: z.ZodError, format: IssueFormat = {}): string {
  const separator = format.separator ?? ": ";
  return error.issues
    .map((issue) => {
      const path = issue.path.join(".") || format.root;
      return path ? `${path}${separator}${issue.message}` : issue.message;
    })
    .join("; ");
}
