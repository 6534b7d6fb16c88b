import { step } from "./advice-step.js";
import type { RunbookRecord } from "./types.js";

/** Procedures for any service: restarts, rollbacks, resources, slow queries and escalation. */
export const PROCEDURE_RUNBOOKS: readonly RunbookRecord[] = [
  {
    id: "RB-001",
    title: "Standard service restart procedure",
    titleZh: "服务重启标准流程",
    tags: ["restart", "重启", "procedure", "流程", "rolling restart", "滚动重启"],
    services: [],
    errorCodes: [],
    summary: "How to restart any service safely with a rolling restart, and what to check afterwards.",
    summaryZh: "如何通过滚动重启安全地重启任意服务，以及重启后需要检查的内容。",
    advice: [
      step(
        "Confirm the restart is needed: check error rate and p95 latency for the last 15 minutes.",
        "确认确实需要重启：查看最近 15 分钟的错误率和 p95 延迟。",
      ),
      step(
        "Announce the restart in the on-call channel with the service, environment and reason.",
        "在值班群中公告重启的服务、环境和原因。",
      ),
      step(
        "Restart instances one at a time (rolling); never restart all instances of a tier-1 service at once.",
        "逐个实例滚动重启；一级服务禁止同时重启全部实例。",
      ),
      step(
        "After each instance, wait until health checks pass before moving on.",
        "每重启一个实例，等待健康检查通过后再继续。",
      ),
      step(
        "Watch error rate for 10 minutes; if it does not drop, stop and escalate (RB-018).",
        "观察错误率 10 分钟；若未下降，停止操作并按 RB-018 升级。",
      ),
    ],
  },
  {
    id: "RB-004",
    title: "Deployment rollback procedure",
    titleZh: "发布回滚流程",
    tags: ["rollback", "回滚", "deploy", "发布", "release", "版本"],
    services: [],
    errorCodes: [],
    summary: "When and how to roll a service back to its previous version.",
    summaryZh: "何时以及如何将服务回滚到上一个版本。",
    advice: [
      step(
        "Roll back when errors started within 30 minutes of a deployment and no quick fix is known.",
        "若错误在发布后 30 分钟内出现且没有快速修复方案，执行回滚。",
      ),
      step(
        "Check that the previous version is compatible with the current database schema.",
        "确认上一个版本与当前数据库表结构兼容。",
      ),
      step(
        "Roll back production only with an admin's approval; staging may be rolled back by operators.",
        "生产环境回滚需管理员批准；预发环境可由运维人员回滚。",
      ),
      step(
        "After the rollback, confirm the version and watch error rate for 15 minutes.",
        "回滚后确认版本号，并观察错误率 15 分钟。",
      ),
    ],
  },
  {
    id: "RB-013",
    title: "High CPU or memory on a service",
    titleZh: "服务 CPU 或内存过高排查",
    tags: ["cpu", "memory", "内存", "gc", "性能", "performance"],
    services: [],
    errorCodes: ["HIGH_CPU", "OOM_KILLED"],
    summary: "CPU or memory stays above 85% and latency rises.",
    summaryZh: "CPU 或内存持续高于 85%，延迟上升。",
    advice: [
      step(
        "Capture a CPU profile or heap snapshot from one instance before restarting anything.",
        "重启前先从一个实例抓取 CPU 火焰图或堆快照。",
      ),
      step("Scale out by two instances to buy time.", "先扩容两个实例争取时间。"),
      step("If a recent release caused it, roll back (RB-004).", "若由最近发布引起，执行回滚（RB-004）。"),
    ],
  },
  {
    id: "RB-014",
    title: "Slow database queries",
    titleZh: "数据库慢查询处理",
    tags: ["database", "数据库", "slow query", "慢查询", "index", "索引"],
    services: [],
    errorCodes: ["DB_SLOW_QUERY"],
    summary: "Queries above 1 s appear in the slow log and hold connections.",
    summaryZh: "慢日志中出现超过 1 秒的查询，并长时间占用连接。",
    advice: [
      step(
        "Group slow queries by fingerprint and find the top three by total time.",
        "按指纹聚合慢查询，找出总耗时前三的语句。",
      ),
      step("Check their plans for full table scans and missing indexes.", "检查执行计划中的全表扫描与缺失索引。"),
      step("Kill queries running longer than 60 s in production.", "终止生产环境中运行超过 60 秒的查询。"),
    ],
  },
  {
    id: "RB-018",
    title: "Incident escalation and on-call",
    titleZh: "故障升级与值班流程",
    tags: ["incident", "故障", "escalation", "升级", "on-call", "值班"],
    services: [],
    errorCodes: [],
    summary: "Who to call and when, for incidents on tier-1 services.",
    summaryZh: "一级服务故障时，何时升级、联系谁。",
    advice: [
      step(
        "Declare an incident when a tier-1 service has errors above 5% for 5 minutes.",
        "一级服务错误率连续 5 分钟高于 5% 时宣布故障。",
      ),
      step(
        "Page the owning team's on-call, then the incident commander.",
        "先呼叫所属团队值班人员，再呼叫故障指挥官。",
      ),
      step("Post updates every 15 minutes until resolved.", "每 15 分钟同步一次进展，直到恢复。"),
    ],
  },
];
