import type { Language } from "../../contracts/language.js";

/** One section of a Markdown runbook: the text under one heading, searched and cited on its own. */
export interface RunbookSection {
  /** `path#slug` (just `path` for text before the first heading): stable while the heading stays. */
  id: string;
  /** The heading's text; the runbook's title for text before the first heading. */
  heading: string;
  /** 1-based line of the heading in the file, so a reader can jump to it. */
  line: number;
  /** The Markdown under the heading, up to the next section's heading. */
  text: string;
}

/** A Markdown file of the runbooks folder, parsed. */
export interface RunbookFile {
  /** Path inside the folder, `/`-separated (`payments/db-pool.md`). */
  path: string;
  /** Front matter `title`, else the first `#` heading, else the file name. */
  title: string;
  /** Front matter `services`. */
  services: string[];
  /** Front matter `tags`. */
  tags: string[];
  /** Front matter `alerts`: the alert names it answers. */
  alerts: string[];
  /** Sections with text, in file order. */
  sections: RunbookSection[];
}

/** A section of a folder runbook found by `search_docs`. */
export interface FolderRunbookHit {
  /** Section id, `path#slug`. */
  id: string;
  /** The runbook's title. */
  title: string;
  /** File inside the runbooks folder: cite it with the heading. */
  path: string;
  /** Heading of the matching section. */
  heading: string;
  /** Line of the heading in the file. */
  line: number;
  /** Relevance (bm25, higher is better); comparable only within one search. */
  score: number;
  /** Service names from the front matter. */
  services: string[];
  /** Tags from the front matter. */
  tags: string[];
  /** The section's Markdown, cut to a readable length. */
  snippet: string;
}

/** What kind of trouble a runbooks folder had; none of them stops the index. */
export type RunbookProblemCode = "folder_missing" | "unreadable" | "too_large" | "front_matter" | "index_failed";

/** Something in the runbooks folder that could not be indexed as written; reported, never fatal. */
export interface RunbookProblem {
  /** Kind of trouble. */
  code: RunbookProblemCode;
  /** File or folder inside the runbooks folder, `/`-separated; `.` for the folder itself. */
  path: string;
  /** What is wrong, in a sentence a person can act on. */
  message: string;
}

/** What a search returns for a document ranked beside the folder's sections. */
export interface DocumentHit {
  /** The document's id. */
  id: string;
  /** Relevance (bm25, higher is better); comparable only within one search. */
  score: number;
}

/** A document ranked beside the folder's sections (the demo's runbooks when the demo tools are on). */
export interface RankedDocument {
  /** Id, distinct from the folder's section ids. */
  id: string;
  /** Its search columns as `toIndexText` content: title, keywords (tags, codes, services) and body. */
  columns: readonly [title: string, keywords: string, body: string];
  /** What a search returns for it at this score, in the query's language. */
  hit(score: number, language: Language): DocumentHit;
}
