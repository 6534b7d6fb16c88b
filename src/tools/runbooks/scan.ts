import type { Stats } from "node:fs";
import { readdir, realpath, stat } from "node:fs/promises";
import { join } from "node:path";
import type { RunbookProblem } from "./types.js";

/** Files larger than this are left out: a runbook is a page, not a log dump. */
export const MAX_RUNBOOK_BYTES = 1024 * 1024;

/** A Markdown file found in the folder. */
export interface FolderEntry {
  /** Path inside the folder, `/`-separated. */
  path: string;
  /** Absolute path to read. */
  absolute: string;
  /** Changes whenever the file is written or replaced (mtime, size, inode). */
  signature: string;
}

/** The Markdown files of a folder, and what could not be looked at. */
export interface FolderScan {
  /** Files in path order. */
  files: FolderEntry[];
  /** Unreadable entries, a missing folder, files too large. */
  problems: RunbookProblem[];
}

/** `(ENOENT)` and the like: enough for a person to tell a missing file from a permission problem. */
function errorCode(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code ? ` (${code})` : "";
}

/** Hidden entries (`.git`, Kubernetes' `..data` links) are skipped: they hold copies or tooling, not runbooks. */
function isVisible(name: string): boolean {
  return !name.startsWith(".");
}

/** Walks one directory; links are followed, each real directory once. */
async function walk(absolute: string, relative: string, visited: Set<string>, scan: FolderScan): Promise<void> {
  let names: string[];
  try {
    const real = await realpath(absolute);
    if (visited.has(real)) return;
    visited.add(real);
    names = (await readdir(absolute)).filter(isVisible).sort();
  } catch (error) {
    const where = relative || ".";
    scan.problems.push({ code: "unreadable", path: where, message: `folder cannot be read${errorCode(error)}` });
    return;
  }
  for (const name of names) {
    const path = relative ? `${relative}/${name}` : name;
    const child = join(absolute, name);
    const isMarkdown = /\.md$/i.test(name);
    let info: Stats;
    try {
      info = await stat(child);
    } catch (error) {
      if (isMarkdown) scan.problems.push({ code: "unreadable", path, message: `cannot be read${errorCode(error)}` });
      continue;
    }
    if (info.isDirectory()) await walk(child, path, visited, scan);
    else if (!isMarkdown || !info.isFile()) continue;
    else if (info.size > MAX_RUNBOOK_BYTES) {
      scan.problems.push({ code: "too_large", path, message: `is larger than ${MAX_RUNBOOK_BYTES} bytes; left out` });
    } else {
      scan.files.push({ path, absolute: child, signature: `${info.mtimeMs}:${info.size}:${info.ino}` });
    }
  }
}

/** The `*.md` files under a folder, recursively; a missing folder is a problem, not an error. */
export async function scanFolder(folder: string): Promise<FolderScan> {
  const scan: FolderScan = { files: [], problems: [] };
  try {
    const info = await stat(folder);
    if (!info.isDirectory()) {
      scan.problems.push({ code: "folder_missing", path: ".", message: `runbooks folder ${folder} is not a folder` });
      return scan;
    }
  } catch (error) {
    scan.problems.push({
      code: "folder_missing",
      path: ".",
      message: `runbooks folder ${folder} cannot be opened${errorCode(error)}`,
    });
    return scan;
  }
  await walk(folder, "", new Set(), scan);
  return scan;
}
