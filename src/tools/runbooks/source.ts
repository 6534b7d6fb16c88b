import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import Database from "better-sqlite3";
import { parseRunbook } from "./markdown.js";
import { RunbookIndex } from "./runbook-index.js";
import { scanFolder, type FolderEntry } from "./scan.js";
import type { DocumentHit, FolderRunbookHit, RankedDocument, RunbookFile, RunbookProblem } from "./types.js";

/** How often the folder is looked at by default: runbooks change by hand, so seconds are soon enough. */
const DEFAULT_POLL_MS = 2000;

/** Options of a runbooks folder source. */
export interface RunbookSourceOptions {
  /** Folder of Markdown runbooks (`*.md`, recursively); a relative path resolves against the working directory. */
  folder: string;
  /** Connection the index lives on, in its temp schema (nothing is written to the file); a private in-memory database when omitted. */
  db?: Database.Database;
  /** Documents ranked together with the folder's sections (the app passes the demo runbooks when the demo tools are on). */
  documents?: readonly RankedDocument[];
  /** How often the folder is checked for changes (2000 ms by default); 0 checks only on `refresh()`. */
  pollMs?: number;
  /** Told once about each new problem (bad front matter, unreadable file, missing folder); stderr by default. */
  report?: (problem: RunbookProblem) => void;
}

/** What a source has indexed, for health checks and logs. */
export interface RunbookStatus {
  /** Absolute folder path. */
  folder: string;
  /** Markdown files indexed. */
  files: number;
  /** Sections searchable. */
  sections: number;
  /** Problems standing now, by path. */
  problems: RunbookProblem[];
}

/** A runbooks folder kept searchable: indexed at start, re-indexed when a file changes. */
export interface RunbookSource {
  /** Absolute folder path. */
  readonly folder: string;
  /** Indexes the folder, then watches it; resolves once the first index is searchable. A missing folder is reported, not thrown. */
  start(): Promise<void>;
  /** Looks at the folder now and re-indexes what changed; true when the index changed. */
  refresh(): Promise<boolean>;
  /** Best sections (and `documents`) for a query in English or Chinese, best first. */
  searchDocs(query: string, limit?: number): Array<DocumentHit | FolderRunbookHit>;
  /** Runbooks whose front matter `alerts` lists this alert name (compared without case), in path order. */
  forAlert(alertname: string): RunbookFile[];
  /** Files, sections and standing problems. */
  status(): RunbookStatus;
  /** Stops watching and drops the index; waits for a re-index under way. */
  close(): Promise<void>;
}

/** A file as last read: its signature, and the parsed runbook or why there is none. */
interface ReadFile {
  signature: string;
  file?: RunbookFile;
  problem?: RunbookProblem;
}

/** Writes a problem to stderr, where the server's other start-up troubles go. */
function reportToStderr(problem: RunbookProblem): void {
  const where = problem.path === "." ? "" : `${problem.path} `;
  console.warn(`[opspilot] runbooks: ${where}${problem.message}`);
}

/** Reads and parses one file; undefined when it vanished between the scan and the read. */
async function readRunbook(entry: FolderEntry): Promise<ReadFile | undefined> {
  let text: string;
  try {
    text = await readFile(entry.absolute, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    const message = `cannot be read${code ? ` (${code})` : ""}`;
    return { signature: entry.signature, problem: { code: "unreadable", path: entry.path, message } };
  }
  const { file, problem } = parseRunbook(entry.path, text);
  return {
    signature: entry.signature,
    file,
    ...(problem ? { problem: { code: "front_matter", path: entry.path, message: problem } } : {}),
  };
}

/** One line per problem, so a standing problem is told once, not at every look. */
function problemKey(problem: RunbookProblem): string {
  return `${problem.code}\0${problem.path}\0${problem.message}`;
}

/**
 * A runbooks folder as a `search_docs` backend: every `*.md` file, split into sections at its
 * headings, indexed with the same Chinese and English segmentation and ranking as the demo
 * runbooks. The folder is polled rather than watched: polling survives the folder being
 * deleted and recreated, network mounts and editors that replace files, where `fs.watch`
 * does not.
 */
export function createRunbookSource(options: RunbookSourceOptions): RunbookSource {
  const folder = resolve(options.folder);
  const ownDb = options.db ? undefined : new Database(":memory:");
  const db = options.db ?? (ownDb as Database.Database);
  const index = new RunbookIndex(db, options.documents);
  const report = options.report ?? reportToStderr;
  const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
  let files = new Map<string, ReadFile>();
  let indexed: string | null = null;
  let problems: RunbookProblem[] = [];
  let queue: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let state: "new" | "started" | "closed" = "new";

  function publish(found: RunbookProblem[]): void {
    const known = new Set(problems.map(problemKey));
    problems = found.sort((a, b) => a.path.localeCompare(b.path) || a.code.localeCompare(b.code));
    for (const problem of problems) if (!known.has(problemKey(problem))) report(problem);
  }

  // A function, not an inline test: `close()` may change the state while a re-index awaits.
  const isClosed = () => state === "closed";

  async function reindex(): Promise<boolean> {
    if (isClosed()) return false;
    const scan = await scanFolder(folder);
    const next = new Map<string, ReadFile>();
    for (const entry of scan.files) {
      const known = files.get(entry.path);
      const read = known?.signature === entry.signature ? known : await readRunbook(entry);
      if (read) next.set(entry.path, read);
    }
    if (isClosed()) return false;
    files = next;
    publish([...scan.problems, ...[...next.values()].flatMap((read) => (read.problem ? [read.problem] : []))]);
    const key = [...next].map(([path, read]) => `${path}\0${read.signature}`).join("\n");
    if (key === indexed) return false;
    index.replace([...next.values()].flatMap((read) => (read.file ? [read.file] : [])));
    indexed = key;
    return true;
  }

  function refresh(): Promise<boolean> {
    const run = queue.then(reindex);
    queue = run.catch(() => undefined);
    return run;
  }

  let lastFailure: string | undefined;

  async function poll(): Promise<void> {
    try {
      await refresh();
      lastFailure = undefined;
    } catch (error) {
      // The owner closed the connection first: nothing left to index into.
      if (!db.open) return;
      const message = `re-indexing failed: ${error instanceof Error ? error.message : String(error)}`;
      // Told once, not at every look, while the same failure lasts.
      if (message !== lastFailure) report({ code: "index_failed", path: ".", message });
      lastFailure = message;
    }
    schedule();
  }

  function schedule(): void {
    if (state !== "started" || pollMs <= 0) return;
    timer = setTimeout(() => void poll(), pollMs);
    // A folder check must never keep the process alive on its own.
    timer.unref();
  }

  return {
    folder,
    async start() {
      if (state !== "new") return;
      state = "started";
      await refresh();
      schedule();
    },
    refresh,
    searchDocs(query, limit = 3) {
      return state === "closed" ? [] : index.search(query, limit);
    },
    forAlert(alertname) {
      const wanted = alertname.toLowerCase();
      return [...files.values()]
        .flatMap((read) => (read.file ? [read.file] : []))
        .filter((file) => file.alerts.some((alert) => alert.toLowerCase() === wanted))
        .sort((a, b) => a.path.localeCompare(b.path));
    },
    status() {
      return {
        folder,
        files: [...files.values()].filter((read) => read.file).length,
        sections: index.size,
        problems: [...problems],
      };
    },
    async close() {
      if (state === "closed") return;
      state = "closed";
      clearTimeout(timer);
      await queue;
      index.drop();
      ownDb?.close();
    },
  };
}
