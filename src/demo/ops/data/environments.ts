import type { EnvironmentRecord } from "./types.js";

/** The two environments of the demo estate. */
export const ENVIRONMENTS: readonly EnvironmentRecord[] = [
  {
    id: "prod",
    name: "Production",
    nameZh: "生产环境",
    owner: "platform-team",
    description: "Live customer traffic; every change needs approval. 线上生产环境，承载真实用户流量。",
    aliases: ["production", "live", "prd", "生产", "线上", "正式环境"],
  },
  {
    id: "staging",
    name: "Staging",
    nameZh: "预发环境",
    owner: "platform-team",
    description: "Pre-release copy of production with synthetic traffic. 预发/测试环境，使用模拟流量验证新版本。",
    aliases: ["stage", "pre-release", "test", "预发", "测试环境", "预生产"],
  },
];
