import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { keepHeadAndTail } from "../../../src/tools/mcp/stderr.js";

/** Feeds `text` through a stream in `size`-character chunks and returns the excerpt once it is read. */
async function excerptOf(text: string, size: number, head = 2, tail = 3): Promise<string> {
  const stream = new PassThrough();
  const excerpt = keepHeadAndTail(stream, head, tail);
  for (let index = 0; index < text.length; index += size) stream.write(text.slice(index, index + size));
  await new Promise((resolve) => setImmediate(resolve));
  return excerpt();
}

describe("an MCP server's stderr excerpt", () => {
  it("keeps the reason on the first line and the end of 200 lines of usage text, stating the cut", async () => {
    const usage = Array.from({ length: 200 }, (_, index) => `usage line ${index + 1}`);
    const text = ["Error: no current-context is set", ...usage].join("\n") + "\n";
    expect(await excerptOf(text, 37)).toBe(
      [
        "Error: no current-context is set",
        "usage line 1",
        "… 196 lines cut …",
        "usage line 198",
        "usage line 199",
        "usage line 200",
      ].join("\n"),
    );
  });

  it("keeps every line, without a cut, when there are few, the last one even without its newline", async () => {
    expect(await excerptOf("one\n\ntwo\nthree", 4)).toBe("one\ntwo\nthree");
  });
});
