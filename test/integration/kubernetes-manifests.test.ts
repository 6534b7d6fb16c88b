import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ConfigFileSchema } from "../../src/config/schema.js";
import {
  deploymentsOf,
  objectsOf,
  parseObjects,
  renderKustomization,
  schemaProblems,
} from "../fixtures/kubernetes-manifests.js";
import {
  gracePeriodRule,
  imageTagRule,
  probeRule,
  resourcesRule,
  secretValueRule,
  securityContextRule,
  type ManifestRule,
} from "../fixtures/manifest-rules.js";
import { scaleOutRule, singleWriterRule, wiringRule } from "../fixtures/overlay-rules.js";
import { PROMETHEUS_RULE_PATH, RULES_PATH, renderPrometheusRule } from "../../scripts/prometheus-rule.js";

const KUSTOMIZE = fileURLToPath(new URL("../../deploy/kubernetes/", import.meta.url));

/** Rules every deployable overlay keeps. */
const POD_RULES: ManifestRule[] = [
  probeRule,
  securityContextRule,
  secretValueRule,
  imageTagRule,
  gracePeriodRule,
  resourcesRule,
  wiringRule,
];

/** What `kubectl apply -k` would send for each directory, rendered once. */
const rendered = Object.fromEntries(
  ["base", "overlays/sqlite", "overlays/postgres", "monitoring"].map((dir) => [
    dir,
    renderKustomization(join(KUSTOMIZE, dir)),
  ]),
);

describe("the Kubernetes manifests", () => {
  it.each(Object.keys(rendered))("render %s into objects that all validate against their schemas", (dir) => {
    const objects = rendered[dir]!;
    expect(objects.length).toBeGreaterThan(1);
    expect(objects.flatMap(schemaProblems)).toEqual([]);
  });

  it.each(["base", "overlays/sqlite", "overlays/postgres"])("keep every pod rule in %s", (dir) => {
    expect(POD_RULES.flatMap((rule) => rule(rendered[dir]!))).toEqual([]);
  });

  it("run SQLite as one replica on a claim, recreated on update", () => {
    const objects = rendered["overlays/sqlite"]!;
    expect(singleWriterRule(objects)).toEqual([]);
    expect(objectsOf(objects, "PersistentVolumeClaim").map((claim) => claim.metadata.name)).toEqual(["opspilot-data"]);
  });

  it("run PostgreSQL replicas under an autoscaler and a disruption budget", () => {
    const objects = rendered["overlays/postgres"]!;
    expect(scaleOutRule(objects)).toEqual([]);
    expect(objectsOf(objects, "PersistentVolumeClaim")).toEqual([]);
  });

  it("ship a config file the server accepts in its ConfigMap", () => {
    const configMap = objectsOf(rendered.base!, "ConfigMap").find((map) =>
      map.metadata.name.startsWith("opspilot-config"),
    );
    const text = (configMap?.data as Record<string, string>)["opspilot.config.json"]!;
    expect(ConfigFileSchema.safeParse(JSON.parse(text)).success).toBe(true);
    const [deployment] = deploymentsOf(rendered.base!);
    const env = deployment!.spec!.template.spec!.containers[0]!.env!;
    expect(env.find((variable) => variable.name === "OPSPILOT_CONFIG")?.value).toBe(
      "/etc/opspilot/opspilot.config.json",
    );
  });

  it("keep the example Secret out of every kustomization, and valid on its own", () => {
    for (const objects of Object.values(rendered)) expect(objectsOf(objects, "Secret")).toEqual([]);
    const example = parseObjects(readFileSync(join(KUSTOMIZE, "base/secret.example.yaml"), "utf8"));
    expect(example.map((secret) => [secret.kind, secret.metadata.name])).toEqual([["Secret", "opspilot"]]);
    expect(example.flatMap(schemaProblems)).toEqual([]);
  });

  it("hold the same alert groups in the PrometheusRule as in deploy/prometheus/opspilot-rules.yml", async () => {
    const rule = objectsOf(rendered.monitoring!, "PrometheusRule")[0]!;
    const { groups } = parse(readFileSync(RULES_PATH, "utf8")) as { groups: unknown };
    expect((rule.spec as { groups: unknown }).groups).toEqual(groups);
    // The file is exactly what `npm run prometheus-rule` writes.
    expect(readFileSync(PROMETHEUS_RULE_PATH, "utf8")).toBe(await renderPrometheusRule());
  });
});
