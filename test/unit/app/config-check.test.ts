import { describe, expect, it } from "vitest";
import { checkToolKeys, describeToolKey, type ToolKeyCheck } from "../../../src/app/config-check.js";

const BUILT_IN = ["search_logs", "restart_service", "rollback_deploy", "read_result"];
const K8S = ["k8s__get_pods", "k8s__delete_pod"];

function check(keys: string[], overrides: Partial<ToolKeyCheck> = {}) {
  return checkToolKeys({
    keys,
    tools: [...BUILT_IN, ...K8S],
    servers: [{ server: "k8s", available: true }],
    ...overrides,
  });
}

describe("checkToolKeys", () => {
  it("passes exact names and globs that match a tool, including one that disables it", () => {
    expect(check(["restart_service", "k8s__*", "*__delete_*", "r?ad_result", "*"])).toEqual([]);
  });

  it("suggests the tool a misspelt name was meant for", () => {
    expect(check(["restart_servce", "Restart_Service", "k8s__get_pod"])).toEqual([
      { key: "restart_servce", verdict: "unmatched", servers: [], suggestion: "restart_service" },
      { key: "Restart_Service", verdict: "unmatched", servers: [], suggestion: "restart_service" },
      { key: "k8s__get_pod", verdict: "unmatched", servers: [], suggestion: "k8s__get_pods" },
    ]);
  });

  it("suggests nothing for a name far from every tool", () => {
    expect(check(["drop_database"])).toEqual([{ key: "drop_database", verdict: "unmatched", servers: [] }]);
  });

  it("suggests the server a glob's misspelt server part was meant for", () => {
    expect(check(["k9s__*", "k9s__nothing_like_it*"])).toEqual([
      { key: "k9s__*", verdict: "unmatched", servers: [], suggestion: "k8s__*" },
      { key: "k9s__nothing_like_it*", verdict: "unmatched", servers: [] },
    ]);
  });

  it("leaves keys that may name tools of a server that is down unverified, and checks the others", () => {
    const servers = [
      { server: "k8s", available: true },
      { server: "jira", available: false, reason: "connecting" },
      { server: "pager", available: false },
    ];
    expect(
      check(["jira__create_issue", "jira__*", "ji*", "*__delete_ticket", "k8s__scale", "restart_servce"], { servers }),
    ).toEqual([
      { key: "jira__create_issue", verdict: "unverified", servers: ["jira"] },
      { key: "jira__*", verdict: "unverified", servers: ["jira"] },
      { key: "ji*", verdict: "unverified", servers: ["jira"] },
      { key: "*__delete_ticket", verdict: "unverified", servers: ["jira", "pager"] },
      { key: "k8s__scale", verdict: "unmatched", servers: [] },
      { key: "restart_servce", verdict: "unmatched", servers: [], suggestion: "restart_service" },
    ]);
  });
});

describe("describeToolKey", () => {
  it("says what a key that matches nothing does, and what was meant", () => {
    const [typo, far] = check(["restart_servce", "k8s__scale*"]);
    expect(describeToolKey(typo!)).toBe(
      "tools.restart_servce matches no tool, so it changes nothing; did you mean restart_service?",
    );
    expect(describeToolKey(far!)).toBe('tools."k8s__scale*" matches no tool, so it changes nothing');
  });

  it("names the servers an unverified key waits for", () => {
    expect(describeToolKey({ key: "jira__*", verdict: "unverified", servers: ["jira"] })).toBe(
      'tools."jira__*" is not checked: MCP server jira is not up',
    );
    expect(describeToolKey({ key: "*__delete", verdict: "unverified", servers: ["jira", "pager"] })).toBe(
      'tools."*__delete" is not checked: MCP servers jira, pager are not up',
    );
  });
});
