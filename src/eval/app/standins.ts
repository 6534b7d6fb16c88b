import { AIMessage } from "@langchain/core/messages";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { ConfigFile } from "../../config/schema.js";
import type { ScriptTurn, Standin } from "../scenario-script-schema.js";

/**
 * The stand-ins and the scripted model live with the tests (test/fixtures), which `npm run eval`
 * runs from (tsx); they load only when a scenario names them.
 */
const fixture = (name: string) => new URL(`../../../test/fixtures/${name}`, import.meta.url).href;

/** What the Kubernetes stand-in modules offer the eval. */
interface KubernetesStandinModule {
  startKubernetesStandin(options: {
    tls: unknown;
  }): Promise<{ kubeconfig(token: string): string; close(): Promise<void> }>;
}
interface KubernetesTlsModule {
  generateStandinTls(): unknown;
}

/** One CA and certificate for every stand-in of this process (making them takes about a second). */
let tls: Promise<unknown> | undefined;

/** What the scripted model module offers the eval. */
interface ScriptedModelModule {
  ScriptedChatModel: new (options: { script: AIMessage[] }) => BaseChatModel;
}

/** Stand-ins started for one scenario: the toolsets that reach them, and how to stop them. */
export interface StartedStandins {
  toolsets: NonNullable<ConfigFile["toolsets"]>;
  close(): Promise<void>;
}

/** Starts the stand-ins a scenario names, each on loopback with full access. */
export async function startStandins(standin: Standin): Promise<StartedStandins> {
  const { startKubernetesStandin } = (await import(fixture("kubernetes-standin.ts"))) as KubernetesStandinModule;
  tls ??= import(fixture("kubernetes-tls.ts")).then((module: KubernetesTlsModule) => module.generateStandinTls());
  const kubernetes = await startKubernetesStandin({ tls: await tls });
  return {
    toolsets: {
      // The stand-in rolls out in 150 ms: a short follow limit polls it every 500 ms, not every 2 s.
      kubernetes: {
        kubeconfig: kubernetes.kubeconfig("admin"),
        namespaces: namespacesOf(standin),
        rolloutTimeoutMs: 10_000,
      },
    },
    close: () => kubernetes.close(),
  };
}

function namespacesOf(standin: Standin): string[] {
  switch (standin.kubernetes) {
    case "default":
      return ["payments"];
    default: {
      const unknown: never = standin.kubernetes;
      throw new Error(`unknown Kubernetes stand-in scenario ${String(unknown)}`);
    }
  }
}

/** A chat model that answers with the script's turns, in order (tool-call ids and usage filled in). */
export async function scriptedModel(script: readonly ScriptTurn[]): Promise<BaseChatModel> {
  const { ScriptedChatModel } = (await import(fixture("scripted-model.ts"))) as ScriptedModelModule;
  return new ScriptedChatModel({ script: script.map(turnMessage) });
}

function turnMessage(turn: ScriptTurn): AIMessage {
  if ("answer" in turn) return new AIMessage(turn.answer);
  return new AIMessage({
    content: turn.text ?? "",
    tool_calls: turn.calls.map((call) => ({ name: call.tool, args: call.args, type: "tool_call" as const })),
  });
}
