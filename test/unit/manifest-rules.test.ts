import { describe, expect, it } from "vitest";
import { schemaProblems, type Deployment, type KubeObject } from "../fixtures/kubernetes-manifests.js";
import {
  gracePeriodRule,
  imageTagRule,
  probeRule,
  resourcesRule,
  secretValueRule,
  securityContextRule,
} from "../fixtures/manifest-rules.js";
import { scaleOutRule, singleWriterRule, wiringRule } from "../fixtures/overlay-rules.js";

const LABELS = { "app.kubernetes.io/name": "opspilot" };

/** A rendered postgres-like overlay that keeps every rule. */
function manifests(): KubeObject[] {
  const deployment: Deployment = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "opspilot" },
    spec: {
      selector: { matchLabels: LABELS },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      template: {
        metadata: { labels: LABELS },
        spec: {
          serviceAccountName: "opspilot",
          terminationGracePeriodSeconds: 45,
          securityContext: { runAsNonRoot: true, runAsUser: 10001, seccompProfile: { type: "RuntimeDefault" } },
          containers: [
            {
              name: "opspilot",
              image: "opspilot:0.1.0",
              ports: [{ name: "http", containerPort: 8787 }],
              env: [
                { name: "OPSPILOT_SHUTDOWN_GRACE_SECONDS", value: "30" },
                { name: "DATABASE_URL", valueFrom: { secretKeyRef: { name: "opspilot-database", key: "url" } } },
              ],
              envFrom: [{ configMapRef: { name: "opspilot-env" } }, { secretRef: { name: "opspilot" } }],
              startupProbe: { httpGet: { path: "/healthz", port: "http" } },
              livenessProbe: { httpGet: { path: "/healthz", port: "http" } },
              readinessProbe: { httpGet: { path: "/readyz", port: "http" } },
              resources: { requests: { cpu: "100m", memory: "256Mi" }, limits: { memory: "512Mi" } },
              securityContext: {
                readOnlyRootFilesystem: true,
                allowPrivilegeEscalation: false,
                capabilities: { drop: ["ALL"] },
              },
            },
          ],
          volumes: [{ name: "data", emptyDir: {} }],
        },
      },
    },
  };
  const object = (kind: string, name: string, rest: object): KubeObject => ({
    apiVersion: "v1",
    kind,
    metadata: { name },
    ...rest,
  });
  return [
    deployment,
    object("ServiceAccount", "opspilot", {}),
    object("ConfigMap", "opspilot-env", { data: { OPSPILOT_MODEL: "demo" } }),
    object("Service", "opspilot", { spec: { selector: LABELS, ports: [{ port: 8787, targetPort: "http" }] } }),
    object("NetworkPolicy", "opspilot", { spec: { podSelector: { matchLabels: LABELS } } }),
    object("HorizontalPodAutoscaler", "opspilot", {
      spec: { scaleTargetRef: { kind: "Deployment", name: "opspilot" }, minReplicas: 2 },
    }),
    object("PodDisruptionBudget", "opspilot", { spec: { selector: { matchLabels: LABELS } } }),
  ];
}

/** The manifests with the Deployment changed by `change`. */
function withDeployment(change: (deployment: Deployment) => void): KubeObject[] {
  const objects = manifests();
  change(objects[0] as Deployment);
  return objects;
}

const WHERE = "Deployment/opspilot container opspilot";

/** The one container of a Deployment made by `manifests()`. */
const container = (deployment: Deployment) => deployment.spec!.template.spec!.containers[0]!;

describe("the manifest rules", () => {
  it("find nothing wrong in manifests that keep them", () => {
    const objects = manifests();
    const rules = [probeRule, securityContextRule, secretValueRule, imageTagRule, gracePeriodRule, resourcesRule];
    expect([...rules, wiringRule, scaleOutRule].flatMap((rule) => rule(objects))).toEqual([]);
  });

  it("name a readiness probe that asks /healthz instead of /readyz", () => {
    const objects = withDeployment(
      (d) => (container(d).readinessProbe = { httpGet: { path: "/healthz", port: "http" } }),
    );
    expect(probeRule(objects)).toEqual([`${WHERE}: readinessProbe asks /healthz, not /readyz`]);
  });

  it("name a missing startup probe and a liveness probe on an undeclared port", () => {
    const objects = withDeployment((d) => {
      delete container(d).startupProbe;
      container(d).livenessProbe = { httpGet: { path: "/healthz", port: 9000 } };
    });
    expect(probeRule(objects)).toEqual([
      `${WHERE}: no startupProbe with httpGet /healthz`,
      `${WHERE}: livenessProbe port 9000 is not a container port`,
    ]);
  });

  it("name each part of the security context that is missing", () => {
    const objects = withDeployment((d) => {
      d.spec!.template.spec!.securityContext = { runAsUser: 0 };
      container(d).securityContext = { capabilities: { add: ["NET_ADMIN"] }, privileged: true };
    });
    expect(securityContextRule(objects)).toEqual([
      `${WHERE}: runAsNonRoot is not true`,
      `${WHERE}: runs as uid 0`,
      `${WHERE}: readOnlyRootFilesystem is not true`,
      `${WHERE}: allowPrivilegeEscalation is not false`,
      `${WHERE}: is privileged`,
      `${WHERE}: does not drop ALL capabilities`,
      `${WHERE}: adds capabilities`,
      `${WHERE}: seccomp profile is not RuntimeDefault`,
    ]);
  });

  it("refuse a Secret with values and secret settings written in the manifests", () => {
    const objects = withDeployment((d) => container(d).env!.push({ name: "OPENAI_API_KEY", value: "sk-123" }));
    objects.push({ apiVersion: "v1", kind: "Secret", metadata: { name: "opspilot" }, stringData: { A: "b" } });
    (objects[2]!.data as Record<string, string>).OPSPILOT_API_TOKENS = "abcdefgh=alice:admin";
    expect(secretValueRule(objects)).toEqual([
      "Secret/opspilot: carries values (make Secrets outside the manifests)",
      `${WHERE}: OPENAI_API_KEY has a literal value`,
      "ConfigMap/opspilot-env: OPSPILOT_API_TOKENS is a secret",
    ]);
  });

  it("refuse an image without a tag or tagged latest, and accept a digest", () => {
    const tagged = (image: string) => imageTagRule(withDeployment((d) => (container(d).image = image)));
    expect(tagged("registry.internal:5000/opspilot")).toEqual([
      `${WHERE}: image registry.internal:5000/opspilot has no tag`,
    ]);
    expect(tagged("opspilot:latest")).toEqual([`${WHERE}: image opspilot:latest is tagged latest`]);
    expect(tagged(`opspilot@sha256:${"a".repeat(64)}`)).toEqual([]);
  });

  it("refuse a termination grace period shorter than the server's grace plus its margin", () => {
    const objects = withDeployment((d) => (d.spec!.template.spec!.terminationGracePeriodSeconds = 35));
    expect(gracePeriodRule(objects)).toEqual([`${WHERE}: terminationGracePeriodSeconds 35 < grace 30 + 10`]);
    const unset = withDeployment((d) => (container(d).env = []));
    expect(gracePeriodRule(unset)).toEqual([
      `${WHERE}: OPSPILOT_SHUTDOWN_GRACE_SECONDS is not set to a number of seconds`,
    ]);
  });

  it("name a container without a CPU request or memory limit", () => {
    const objects = withDeployment((d) => (container(d).resources = { requests: { memory: "256Mi" } }));
    expect(resourcesRule(objects)).toEqual([`${WHERE}: no CPU request`, `${WHERE}: no memory limit`]);
  });

  it("name a Service, NetworkPolicy and ConfigMap reference that miss the pods", () => {
    const objects = manifests().filter((object) => object.kind !== "ConfigMap");
    objects.find((object) => object.kind === "Service")!.spec = {
      selector: { app: "other" },
      ports: [{ targetPort: 80 }],
    };
    objects.find((object) => object.kind === "NetworkPolicy")!.spec = { podSelector: {} };
    expect(wiringRule(objects)).toEqual([
      "Service/opspilot: does not select the pods",
      "Service/opspilot: targetPort 80 is no container port",
      "NetworkPolicy/opspilot: does not select exactly the pods",
      "Deployment/opspilot: ConfigMap opspilot-env is missing",
    ]);
  });

  it("refuse SQLite with two replicas, a rolling update, no claim or an autoscaler", () => {
    const objects = withDeployment((d) => (d.spec!.replicas = 2));
    expect(singleWriterRule(objects)).toEqual([
      "Deployment/opspilot: replicas is not 1",
      "Deployment/opspilot: strategy is not Recreate",
      "Deployment/opspilot: the data volume is not a PersistentVolumeClaim",
      "HorizontalPodAutoscaler/opspilot: scales SQLite",
    ]);
  });

  it("refuse PostgreSQL replicas without a Secret's DATABASE_URL, a budget or an autoscaler from 2", () => {
    const objects = withDeployment((d) => {
      container(d).env = [{ name: "DATABASE_URL", value: "postgres://db/opspilot" }];
      d.spec!.replicas = 3;
      d.spec!.strategy = { type: "RollingUpdate" };
    }).filter((object) => object.kind !== "PodDisruptionBudget");
    objects.find((object) => object.kind === "HorizontalPodAutoscaler")!.spec = {
      scaleTargetRef: { kind: "Deployment", name: "opspilot" },
      minReplicas: 1,
    };
    expect(scaleOutRule(objects)).toEqual([
      "Deployment/opspilot: DATABASE_URL does not come from a Secret",
      "Deployment/opspilot: the autoscaler allows fewer than 2 replicas",
      "Deployment/opspilot: sets replicas, which the autoscaler owns",
      "Deployment/opspilot: no PodDisruptionBudget selects the pods",
      "Deployment/opspilot: a rolling update may take pods away before new ones are ready",
    ]);
  });

  it("name a field of the wrong type and a kind without a schema", () => {
    const [deployment] = withDeployment((d) => (d.spec!.template.spec!.terminationGracePeriodSeconds = "45" as never));
    expect(schemaProblems(deployment!)).toEqual([
      "Deployment/opspilot: data/spec/template/spec/terminationGracePeriodSeconds must be integer",
    ]);
    const rule = { apiVersion: "monitoring.coreos.com/v1", kind: "PrometheusRule", metadata: { name: "r" } };
    expect(schemaProblems({ ...rule, spec: { groups: [{ name: "g", rules: [{ alert: "A" }] }] } })).toEqual([
      "PrometheusRule/r: data/spec/groups/0/rules/0 must have required property expr",
    ]);
    expect(schemaProblems({ apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" } })).toEqual([
      "Widget/w: no schema for example.com/v1 Widget",
    ]);
  });
});
