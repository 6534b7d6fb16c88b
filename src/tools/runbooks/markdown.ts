import { posix } from "node:path";
import { splitFrontMatter } from "./front-matter.js";
import type { RunbookFile, RunbookSection } from "./types.js";

/** Headings down to this level start a section; deeper ones stay inside it, so a step list keeps its context. */
const SECTION_LEVEL = 3;

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const ATX_HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const SETEXT_UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/;
/** Lines that cannot be the text of a setext heading: lists, quotes, tables, indented code. */
const NOT_PARAGRAPH = /^(?: {4}|\t| {0,3}(?:[-*+>|]|\d+[.)])(?:\s|$))/;

interface Heading {
  level: number;
  text: string;
}

/** A section being collected. */
interface Draft {
  heading: Heading | null;
  line: number;
  lines: string[];
}

/** Heading text without the inline Markdown a reader does not see. */
function plainHeading(text: string): string {
  return text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/`|\*\*|__/g, "")
    .trim();
}

/** An ATX heading (`## Mitigation`) on this line, if any. */
function atxHeading(line: string): Heading | null {
  const match = ATX_HEADING.exec(line);
  const text = plainHeading(match?.[2] ?? "");
  return match && text ? { level: match[1].length, text } : null;
}

/** GitHub's anchor for a heading, so `path#slug` is also a link into the rendered file. */
function slugOf(heading: string): string {
  return heading
    .toLowerCase()
    .trim()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The body split at its headings (ATX and setext); fenced code is never read as a heading. */
function draftSections(body: string, bodyLine: number): Draft[] {
  const drafts: Draft[] = [{ heading: null, line: bodyLine, lines: [] }];
  let fence: string | null = null;
  let previousPlain = false;
  body.split("\n").forEach((line, index) => {
    const current = drafts[drafts.length - 1];
    const fenceMatch = FENCE.exec(line);
    if (fence !== null || fenceMatch) {
      if (fence === null) fence = fenceMatch![1];
      else if (fenceMatch && fenceMatch[1][0] === fence[0] && fenceMatch[1].length >= fence.length) fence = null;
      current.lines.push(line);
      previousPlain = false;
      return;
    }
    const underline = SETEXT_UNDERLINE.exec(line);
    let heading = atxHeading(line);
    let headingLine = bodyLine + index;
    if (!heading && underline && previousPlain) {
      const text = plainHeading(current.lines.pop() as string);
      heading = { level: underline[1][0] === "=" ? 1 : 2, text };
      headingLine -= 1;
    }
    if (heading && heading.level <= SECTION_LEVEL) {
      drafts.push({ heading, line: headingLine, lines: [] });
      previousPlain = false;
      return;
    }
    // A setext heading's text is one paragraph line after a blank line or a heading.
    const lastLine = current.lines[current.lines.length - 1];
    previousPlain =
      !heading && line.trim() !== "" && !NOT_PARAGRAPH.test(line) && (lastLine === undefined || lastLine.trim() === "");
    current.lines.push(line);
  });
  return drafts;
}

/** The title: front matter, else the first level-1 heading, else the file name. */
function titleOf(path: string, frontMatterTitle: string | undefined, drafts: readonly Draft[]): string {
  return (
    frontMatterTitle ??
    drafts.find((draft) => draft.heading?.level === 1)?.heading?.text ??
    posix.basename(path).replace(/\.md$/i, "")
  );
}

/** Text of a section without the blank lines around it. */
function sectionText(lines: readonly string[]): string {
  return lines
    .map((line) => line.trimEnd())
    .join("\n")
    .replace(/^\n+|\n+$/g, "");
}

/**
 * A runbook file's front matter and its sections, one per heading down to `###`; sections
 * without text are left out. `problem` says why the front matter was ignored, when it was.
 */
export function parseRunbook(path: string, raw: string): { file: RunbookFile; problem?: string } {
  const text = raw.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const { frontMatter, body, bodyLine, problem } = splitFrontMatter(text);
  const drafts = draftSections(body, bodyLine);
  const title = titleOf(path, frontMatter.title, drafts);
  const slugCounts = new Map<string, number>();
  const sections: RunbookSection[] = [];
  for (const draft of drafts) {
    let id = path;
    if (draft.heading) {
      const slug = slugOf(draft.heading.text);
      const seen = slugCounts.get(slug) ?? 0;
      slugCounts.set(slug, seen + 1);
      id = `${path}#${seen === 0 ? slug : `${slug}-${seen}`}`;
    }
    const sectionBody = sectionText(draft.lines);
    if (sectionBody === "") continue;
    sections.push({ id, heading: draft.heading?.text ?? title, line: draft.line, text: sectionBody });
  }
  return {
    file: { path, title, services: frontMatter.services, tags: frontMatter.tags, alerts: frontMatter.alerts, sections },
    ...(problem ? { problem } : {}),
  };
}
