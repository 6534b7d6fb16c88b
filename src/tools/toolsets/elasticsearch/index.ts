import type { ElasticsearchInstance, ElasticsearchToolset } from "../../../config/log-toolsets-schema.js";
import type { ToolDefinition } from "../../types.js";
import { instancesOf } from "../log-shaping/instances.js";
import { createElasticsearchAggregateTool } from "./aggregate.js";
import { searchClient } from "./client.js";
import { createElasticsearchFieldsTool } from "./fields.js";
import { createElasticsearchSearchTool } from "./search.js";
import type { SearchTarget } from "./search-body.js";

/** The three reads of Elasticsearch / OpenSearch over the configured clusters (several: the `instance` argument). */
export function createElasticsearchTools(config: ElasticsearchToolset): ToolDefinition[] {
  const targets: SearchTarget[] = instancesOf<ElasticsearchInstance>(config).map((instance) => ({
    ...instance,
    client: searchClient(instance),
    index: instance.index ?? "*",
    timeField: instance.timeField ?? "@timestamp",
    messageField: instance.messageField ?? "message",
    levelField: instance.levelField ?? "log.level",
  }));
  return [
    createElasticsearchSearchTool(targets),
    createElasticsearchAggregateTool(targets),
    createElasticsearchFieldsTool(targets),
  ];
}
