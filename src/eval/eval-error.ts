/** A refusal of `npm run eval` before anything runs: a bad flag, a bad scenario file, a bad report to compare with. */
export class EvalUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EvalUsageError";
  }
}
