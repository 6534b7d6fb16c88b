export { createMcpToolSource, type McpToolSource, type McpToolSourceOptions } from "./tool-source.js";
export type { McpLogger } from "./connection-options.js";
export { policyOf, qualifiedName, type AnnotationPolicy } from "./tool-definition.js";
