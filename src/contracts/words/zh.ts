import type { DurationUnit, LoopWords } from "./types.js";

const UNIT_NAMES: Record<DurationUnit, string> = { d: "天", h: "小时", m: "分钟", s: "秒" };

/** The loop's words in Chinese. */
export const CHINESE: LoopWords = {
  stopTitle: {
    max_steps: "已达到步数上限，我先停在这里。",
    timeout: "已达到时间上限，我先停在这里。",
    loop_detected: "我在重复同样的调用，所以先停在这里。",
    too_many_fails: "工具接连失败，所以我先停在这里。",
    budget_exhausted: "本次运行的预算已用完，我先停在这里。",
    cancelled: "运行已取消。",
    error: "抱歉，这次运行出现内部错误，已停止。",
  },
  stopped: "运行已停止。",
  nothingFound: "到目前为止还没有拿到可用的结果。",
  foundSoFar: "目前已查到：\n",
  nextStep: {
    limit: "您可以换个问法、缩小范围，或放宽限制后再试。",
    rephrase: "您可以换个问法或缩小范围后再问。",
    cancelled: "准备好后可以再问一次。",
    error: "您可以再试一次。",
  },
  limits: {
    maxSteps: (limit) => `已达到最多 ${limit} 步的上限。`,
    timeout: (limitMs) => `运行时间超过了 ${limitMs} 毫秒的上限。`,
    tokens: (tokens) => `已用完本次运行的 token 预算（${tokens} tokens）。`,
    cost: (costUsd) => `已用完本次运行的费用预算（${costUsd.toFixed(4)} 美元）。`,
    failedSteps: (steps) => `工具连续失败了 ${steps} 次。`,
    identicalCalls: (times) => `同样的调用已连续提出 ${times} 次。`,
    alternation: "调用在两组之间来回往复（A→B→A→B）。",
    cycle: (length, example) => `调用在 ${length} 组之间反复循环（${example}）。`,
    approvalPauses: (limit) => `本次运行已请求批准 ${limit} 次，又提出了需要批准的操作；为避免反复打扰，先停在这里。`,
  },
  runCancelled: "运行已被取消。",
  runFailed: "运行失败。",
  model: {
    credentials: "模型服务拒绝了凭据（请检查 OPENAI_API_KEY 或 ANTHROPIC_API_KEY）。",
    rejected: (status) => `模型服务拒绝了请求（HTTP ${status}）。`,
    rateLimited: "模型服务限流，重试后仍未成功。",
    timedOut: "模型服务未在时限内响应。",
    unreachable: "暂时无法调用模型服务。",
    endsHere: "本次运行到此结束，请稍后再试。",
    contextFull:
      "模型认为请求超出了它的上下文窗口；即使把较早的步骤归入工作记忆、又进一步压缩了一次，仍然超出。本次运行到此结束。" +
      "请再问一次：这个会话的下一个问题会从压缩后的上下文开始。如果反复出现，请把 OPSPILOT_CONTEXT_TOKENS 设为模型实际的窗口大小。",
    emptyReply: "模型返回了空回复，本次运行到此结束。请换个说法再试一次。",
  },
  duration: (count, unit) => `${count} ${UNIT_NAMES[unit]}`,
  pause: {
    listSeparator: "、",
    reasonSeparator: "；",
    withApprovals: (reason, approvals) => `${reason}${approvals}。`,
    highRisk: (tool) => `${tool} 是高风险操作，需要您批准、修改或拒绝。`,
    needs: (tool, fields) => `${tool} 需要您提供：${fields}`,
    needsThenEgress: (tool, fields, egress) => `${tool} 需要您提供：${fields}。${egress}`,
    finalArgs: "高风险操作：请确认最终参数后批准、修改或拒绝。",
    reasonAndFinalArgs: (reason, tool, finalArgs) => `${reason}${tool} 是${finalArgs}`,
    needsAndFinalArgs: (tool, fields, finalArgs) => `${tool} 需要您提供：${fields}，且是${finalArgs}`,
    approvals: (names, required, requester) => {
      const who = names.length > 0 ? `（${names.join("、")}）` : "";
      const not = requester ? `；发起人 ${requester} 不能批准` : "";
      return `已有 ${names.length}/${required} 个批准${who}${not}`;
    },
    egress: (tool, shown, total) => {
      const list = shown.join("、") + (total > shown.length ? ` 等 ${total} 个来源` : "");
      return `${tool} 会把数据发送到外部，而本线程读过来自 ${list} 的内容，其中可能夹带指令；请批准、修改或拒绝。`;
    },
    expired: (tool, within, approval) =>
      approval
        ? `没有人在 ${within}内批准这次 ${tool} 调用。`
        : `没有人在 ${within}内回答这次 ${tool} 调用：它所在的等待已过期。`,
    rejected: (tool, note) => (note ? `用户拒绝了这次 ${tool} 调用：${note}` : `用户拒绝了这次 ${tool} 调用。`),
    stoppedWhileWaiting: "运行在等待您时被停止。",
    superseded: "一条新消息取代了这次等待。",
  },
};
