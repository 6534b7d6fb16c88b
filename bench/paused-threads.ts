import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { median, round } from "./stats.js";

/** How the many-paused-threads measure runs. */
export interface PausedThreadsOptions {
  /** Threads paused at the baseline. */
  few: number;
  /** Threads paused at once at the measured level. */
  many: number;
  /** Resumes timed at each level (the median is reported). */
  resumes: number;
}

/** RSS and resume latency with `many` threads paused at once against `few`. */
export interface PausedThreadsResult {
  few: number;
  many: number;
  /** RSS after GC with `many` paused minus the same with `few` paused. */
  rssIncreaseMb: number;
  /** The JS heap and external memory after GC, the same way: what the paused threads' objects hold. */
  heapIncreaseMb: number;
  /** Wall time to open the extra pauses (each a run to its approval pause). */
  pauseMs: number;
  /** Median ms from `resumeRun` to `run_finished` with `few` and with `many` threads paused. */
  fewResumeMs: number;
  manyResumeMs: number;
  /** The fastest resume at each level: what a resume costs when nothing else gets in its way. */
  fewResumeMinMs: number;
  manyResumeMinMs: number;
  /**
   * manyResumeMinMs / fewResumeMinMs: 1.00 means paused threads cost a resume nothing. The
   * fastest of several, because one resume is tens of milliseconds and a loaded machine moves
   * medians of so few by more than that; a cost that grows with paused threads shows in every resume.
   */
  resumeRatio: number;
}

/** Runs `paused-threads-child.ts` in its own process (with --expose-gc) and reads its figures. */
export function runPausedThreads(
  options: PausedThreadsOptions,
  onProgress: (line: string) => void = () => {},
): Promise<PausedThreadsResult> {
  const directory = mkdtempSync(join(tmpdir(), "opspilot-paused-"));
  const script = fileURLToPath(new URL("./paused-threads-child.ts", import.meta.url));
  const args = ["--expose-gc", "--import", "tsx", script, join(directory, "paused.sqlite")];
  const child = spawn(process.execPath, [...args, String(options.few), String(options.many), String(options.resumes)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  return new Promise<PausedThreadsResult>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code !== 0) return reject(new Error(`paused-threads child exited with ${code}`));
      const figures = JSON.parse(stdout.trim().split("\n").at(-1)!) as {
        rssFew: number;
        rssMany: number;
        heapFew: number;
        heapMany: number;
        pauseMs: number;
        fewResume: number[];
        manyResume: number[];
      };
      onProgress(`paused threads: ${options.many} paused in ${(figures.pauseMs / 1000).toFixed(1)} s`);
      resolve({
        few: options.few,
        many: options.many,
        rssIncreaseMb: round((figures.rssMany - figures.rssFew) / 1024 / 1024, 1),
        heapIncreaseMb: round((figures.heapMany - figures.heapFew) / 1024 / 1024, 1),
        pauseMs: round(figures.pauseMs, 0),
        fewResumeMs: round(median(figures.fewResume), 2),
        manyResumeMs: round(median(figures.manyResume), 2),
        fewResumeMinMs: round(Math.min(...figures.fewResume), 2),
        manyResumeMinMs: round(Math.min(...figures.manyResume), 2),
        resumeRatio: round(Math.min(...figures.manyResume) / Math.min(...figures.fewResume), 2),
      });
    });
  }).finally(() => rmSync(directory, { recursive: true, force: true }));
}
