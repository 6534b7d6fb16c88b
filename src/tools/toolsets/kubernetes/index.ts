export { createKubernetesToolSource, type KubernetesToolSource } from "./source.js";
export { TOOL_NEEDS } from "./needs.js";
