import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ToolError } from "../../../src/contracts/errors.js";
import { createToolServer } from "../../../src/mcp-server/tool-server.js";
import { askableFields, convertInputSchema } from "../../../src/tools/mcp/json-schema.js";
import { resultValue } from "../../../src/tools/mcp/result.js";
import { mcpToolDefinition, policyOf, qualifiedName } from "../../../src/tools/mcp/tool-definition.js";
import { defineTool, requestUserInput } from "../../../src/tools/types.js";

const thrown = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error instanceof ToolError ? { errorCode: error.errorCode, message: error.message } : error;
  }
  return undefined;
};

describe("MCP annotations as policy", () => {
  // Every MCP tool reaches outside (openWorldHint defaults to true) unless a trusted server says otherwise.
  const read = { readOnly: true, risk: "low", idempotent: false, egress: true } as const;
  const careful = { readOnly: false, risk: "high", idempotent: false, egress: true } as const;
  it.each([
    ["readOnlyHint: true", { readOnlyHint: true }, read, read],
    ["a write, destructive by default", { readOnlyHint: false }, careful, careful],
    ["destructiveHint: true", { destructiveHint: true }, careful, careful],
    [
      "destructiveHint: false",
      { destructiveHint: false },
      careful,
      { readOnly: false, risk: "low", idempotent: false, egress: true },
    ],
    [
      "idempotentHint: true",
      { destructiveHint: true, idempotentHint: true },
      careful,
      { readOnly: false, risk: "high", idempotent: true, egress: true },
    ],
    [
      "destructiveHint: false and idempotentHint: true",
      { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
      careful,
      { readOnly: false, risk: "low", idempotent: true, egress: true },
    ],
    ["no annotations", undefined, careful, careful],
    // openWorldHint: false keeps a trusted server's tool inside; an untrusted server's false does not lower egress.
    ["openWorldHint: false", { readOnlyHint: true, openWorldHint: false }, read, { ...read, egress: false }],
    ["openWorldHint: true", { readOnlyHint: true, openWorldHint: true }, read, read],
  ] as const)(
    "reads %s from an untrusted server, then from a trusted one",
    (_case, annotations, untrusted, trusted) => {
      expect(policyOf(annotations, false)).toEqual(untrusted);
      expect(policyOf(annotations, true)).toEqual(trusted);
    },
  );

  it("names where a definition's policy came from: the annotations only when the server is trusted", () => {
    const tool = {
      name: "scale",
      inputSchema: { type: "object" as const, properties: {} },
      annotations: { destructiveHint: false, idempotentHint: true },
    };
    const definition = (trustAnnotations: boolean) =>
      mcpToolDefinition({ server: "k8s", tool, trustAnnotations, timeoutMs: 1_000, call: async () => "done" });
    expect(definition(false)).toMatchObject({
      readOnly: false,
      risk: "high",
      idempotent: false,
      policySource: {
        readOnly: "untrusted server default",
        risk: "untrusted server default",
        idempotent: "untrusted server default",
      },
    });
    expect(definition(true)).toMatchObject({
      readOnly: false,
      risk: "low",
      idempotent: true,
      policySource: { readOnly: "annotations", risk: "annotations", idempotent: "annotations" },
    });
  });

  it("names tools <server>__<tool> with only the characters a function name may hold", () => {
    expect(qualifiedName("k8s", "pods.list/all")).toBe("k8s__pods_list_all");
    expect(qualifiedName("fs", "read_file")).toBe("fs__read_file");
  });
});

describe("MCP input schemas", () => {
  it("validates draft-07 schemas with shared definitions before the call", () => {
    const { schema, parameters, check } = convertInputSchema({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { namespace: { $ref: "#/definitions/name" } },
      required: ["namespace"],
      definitions: { name: { type: "string", minLength: 1 } },
    });
    expect(check).toBeUndefined();
    expect(parameters).toEqual({
      type: "object",
      properties: { namespace: { $ref: "#/$defs/name" } },
      required: ["namespace"],
      $defs: { name: { type: "string", minLength: 1 } },
    });
    expect(schema.safeParse({ namespace: "prod" }).success).toBe(true);
    expect(schema.safeParse({ namespace: "" }).success).toBe(false);
  });

  it("falls back to a JSON Schema check for what zod cannot express, still before the server", async () => {
    const tool = mcpToolDefinition({
      server: "odd",
      tool: {
        name: "query",
        inputSchema: {
          type: "object",
          properties: { q: { type: "string" } },
          required: ["q"],
          not: { required: ["x"] },
        },
      },
      trustAnnotations: false,
      timeoutMs: 1_000,
      call: async () => "sent",
    });
    const context = {
      signal: new AbortController().signal,
      idempotencyKey: "t:1",
      threadId: "t",
      callId: "1",
      user: { id: "u", role: "viewer" },
    };
    await expect(tool.run({ q: "up", x: 1 }, context)).rejects.toMatchObject({ errorCode: "invalid_args" });
    await expect(tool.run({ q: "up" }, context)).resolves.toBe("sent");
  });

  it("asks the user for required fields whose values are a closed list", () => {
    expect(
      askableFields({
        type: "object",
        properties: {
          cluster: { type: "string", enum: ["eu-1", "us-1"], description: "Which cluster" },
          level: { type: "string", enum: ["info", "error"] },
          query: { type: "string" },
        },
        required: ["cluster", "query"],
      }),
    ).toEqual({ cluster: { description: "Which cluster", enum: ["eu-1", "us-1"] } });
  });
});

describe("MCP tool results", () => {
  it("returns structured content, or the text, and summarizes images and resources", () => {
    expect(resultValue("t", { content: [{ type: "text", text: "42" }], structuredContent: { value: 42 } })).toEqual({
      value: 42,
    });
    expect(resultValue("t", { content: [{ type: "text", text: "plain" }] })).toBe("plain");
    const mixed: CallToolResult = {
      content: [
        { type: "text", text: "the dashboard" },
        { type: "image", data: Buffer.from("0123456789").toString("base64"), mimeType: "image/png" },
        { type: "resource", resource: { uri: "file:///a.log", mimeType: "text/plain", text: "x".repeat(5000) } },
        { type: "resource", resource: { uri: "file:///a.bin", blob: Buffer.from("abc").toString("base64") } },
        { type: "resource_link", uri: "https://grafana/d/1", name: "latency" },
      ],
    };
    expect(resultValue("t", mixed)).toEqual({
      content: [
        "the dashboard",
        { type: "image", mimeType: "image/png", bytes: 10 },
        { type: "resource", uri: "file:///a.log", mimeType: "text/plain", chars: 5000 },
        { type: "resource", uri: "file:///a.bin", bytes: 3 },
        { type: "resource_link", uri: "https://grafana/d/1", name: "latency" },
      ],
    });
  });

  it.each([
    ["ENOENT: no such file or directory, open '/tmp/x'", "not_found"],
    ["Access denied - path outside allowed directories: /etc", "permission_denied"],
    ["429 Too Many Requests", "rate_limited"],
    ["disk on fire", "internal"],
  ])("turns an isError result %j into a %s failure with the server's text", (text, errorCode) => {
    expect(thrown(() => resultValue("t", { content: [{ type: "text", text }], isError: true }))).toEqual({
      errorCode,
      message: text,
    });
  });
});

describe("opspilot's tools served over MCP and read back", () => {
  const tools = [
    defineTool({
      name: "pick_cluster",
      description: "Needs the user halfway.",
      schema: z.object({ app: z.string().describe("App") }),
      readOnly: true,
      risk: "low",
      timeoutMs: 1_000,
      run: async () =>
        requestUserInput("Two clusters run this app.", [
          { name: "cluster", description: "Which one", enum: ["a", "b"] },
        ]),
    }),
    defineTool({
      name: "find_app",
      description: "Fails.",
      schema: z.object({ app: z.string().describe("App") }),
      readOnly: true,
      risk: "low",
      timeoutMs: 1_000,
      run: async ({ app }) => {
        throw new ToolError("not_found", `No app ${app}.`);
      },
    }),
  ];

  async function call(name: string, args: Record<string, unknown>) {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = createToolServer(tools);
    await server.connect(serverSide);
    const client = new Client({ name: "test", version: "1" });
    await client.connect(clientSide);
    try {
      return (await client.callTool({ name, arguments: args })) as CallToolResult;
    } finally {
      await client.close();
      await server.close();
    }
  }

  it("turns a tool's mid-run request for the user back into one", async () => {
    const result = await call("pick_cluster", { app: "checkout" });
    expect(result.content).toEqual([
      {
        type: "text",
        text: "Two clusters run this app. Ask the user for: cluster (Which one: a | b). Then call the tool again with them.",
      },
    ]);
    expect(resultValue("ops__pick_cluster", result)).toEqual(
      requestUserInput("Two clusters run this app.", [{ name: "cluster", description: "Which one", enum: ["a", "b"] }]),
    );
  });

  it("keeps a failure's exact error class", async () => {
    const result = await call("find_app", { app: "ghost" });
    expect(thrown(() => resultValue("ops__find_app", result))).toEqual({
      errorCode: "not_found",
      message: "No app ghost.",
    });
  });
});
