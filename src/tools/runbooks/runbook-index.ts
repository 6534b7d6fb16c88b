import type { Database } from "better-sqlite3";
import { detectLanguage } from "../../contracts/language.js";
import { rankRunbooks } from "../text-search/rank.js";
import { toIndexText } from "../text-search/text.js";
import type { DocumentHit, FolderRunbookHit, RankedDocument, RunbookFile, RunbookSection } from "./types.js";

/** Snippets stop near here, at a word boundary when one is close. */
const SNIPPET_CHARS = 600;

/** A section as the index keeps it, with what its hit cites. */
interface IndexedSection extends RunbookSection {
  file: RunbookFile;
}

let tableCount = 0;

/** A section's text cut for the model: whole when short, else up to a word boundary and an ellipsis. */
function snippetOf(text: string): string {
  if (text.length <= SNIPPET_CHARS) return text;
  const cut = text.slice(0, SNIPPET_CHARS);
  const boundary = cut.search(/\s\S*$/);
  return `${boundary > SNIPPET_CHARS * 0.7 ? cut.slice(0, boundary) : cut}…`;
}

/** The words of a path (`payments/db-pool.md` → payments, db-pool), so a folder name finds its runbooks. */
function pathWords(path: string): string[] {
  return path.replace(/\.md$/i, "").split("/");
}

/**
 * One search index over the sections of a runbooks folder and the documents given beside them
 * (the demo runbooks when the demo tools are on), so one bm25 ranking orders both. It lives in the connection's temp schema: it is rebuilt from
 * the folder at every start, writes nothing to the database file, and each process keeps its own.
 */
export class RunbookIndex {
  private readonly table = `runbook_folder_${++tableCount}_fts`;
  private sections = new Map<string, IndexedSection>();

  private readonly documents: ReadonlyMap<string, RankedDocument>;

  /** Creates the index table on `db`, holding `documents` until the folder is read; every build adds them again. */
  constructor(
    private readonly db: Database,
    documents: readonly RankedDocument[] = [],
  ) {
    this.documents = new Map(documents.map((doc) => [doc.id, doc]));
    // The columns rankRunbooks weighs (the demo's runbook table has the same).
    db.exec(
      `CREATE VIRTUAL TABLE temp.${this.table} USING fts5 (
         ref UNINDEXED, title, keywords, body, tokenize = 'porter unicode61')`,
    );
    this.replace([]);
  }

  /** Number of folder sections indexed now. */
  get size(): number {
    return this.sections.size;
  }

  /** Replaces the indexed folder with these files, at once: a search never sees half a rebuild. */
  replace(files: readonly RunbookFile[]): void {
    const sections = new Map<string, IndexedSection>();
    this.db.transaction(() => {
      this.db.exec(`DELETE FROM ${this.table}`);
      const insert = this.db.prepare(`INSERT INTO ${this.table} (ref, title, keywords, body) VALUES (?, ?, ?, ?)`);
      for (const doc of this.documents.values()) insert.run(doc.id, ...doc.columns);
      for (const file of files) {
        for (const section of file.sections) {
          sections.set(section.id, { ...section, file });
          insert.run(
            section.id,
            toIndexText(file.title, section.heading),
            toIndexText(file.tags, file.services, pathWords(file.path)),
            toIndexText(section.text),
          );
        }
      }
    })();
    this.sections = sections;
  }

  /** The best sections (and documents) for a query, best first; documents answer in the query's language. */
  search(query: string, limit: number): Array<DocumentHit | FolderRunbookHit> {
    const language = detectLanguage(query);
    return rankRunbooks(this.db, query, { limit, table: this.table }).flatMap<DocumentHit | FolderRunbookHit>((hit) => {
      const section = this.sections.get(hit.ref);
      if (section) return [toFolderHit(section, hit.score)];
      const doc = this.documents.get(hit.ref);
      return doc ? [doc.hit(hit.score, language)] : [];
    });
  }

  /** Drops the table; the connection may already be closed by its owner. */
  drop(): void {
    if (this.db.open) this.db.exec(`DROP TABLE IF EXISTS temp.${this.table}`);
    this.sections = new Map();
  }
}

/** Shapes a section for the model: what to cite (path, heading, line) and the text itself. */
function toFolderHit(section: IndexedSection, score: number): FolderRunbookHit {
  return {
    id: section.id,
    title: section.file.title,
    path: section.file.path,
    heading: section.heading,
    line: section.line,
    score,
    services: section.file.services,
    tags: section.file.tags,
    snippet: snippetOf(section.text),
  };
}
