// UI labels in Chinese and English; the language follows the browser unless the user picks one.

const LABELS = {
  en: {
    title: "opspilot · operations assistant",
    newThread: "New conversation",
    send: "Send",
    stop: "Stop",
    messageLabel: "Your question",
    placeholder: "e.g. check the payment service's recent errors",
    switchLanguage: "中文",
    you: "You",
    assistant: "Assistant",
    step: "Step {n}",
    stepCount: { one: "{n} step", other: "{n} steps" },
    threadsTitle: "Conversations",
    threadsEmpty: "No conversations yet.",
    waitingForYou: "waiting for you",
    waitingCount: "{n} waiting",
    threadRunning: "running",
    untitled: "(no message yet)",
    incidentsTitle: "Incidents",
    firingCount: "{n} firing",
    firing: "firing",
    resolved: "resolved",
    incidentsFailed: "Could not load incidents: {message}",
    investigationQueued: "queued",
    investigationRunning: "investigating",
    investigationWaiting: "waiting for a person",
    investigationAnswered: "answered",
    fullResult: "Full result",
    loadingResult: "Loading…",
    noStoredResult: "No stored result for this call.",
    copy: "Copy",
    copied: "Copied",
    copyFailed: "Copy failed: select the text and copy it.",
    editedBy: "edited by {user}",
    approvedBy: "approved by {user}",
    rejectedBy: "rejected by {user}",
    rejectedWithReason: "Rejected by {user}: {reason}",
    rejectedNoReason: "Rejected by {user}.",
    confirmReject: "Confirm reject",
    stoppedWhileWaiting: "stopped while waiting",
    proposed: "proposed…",
    ok: "ok",
    waiting: "waiting for you",
    running: "running…",
    finished: "{reason} · {steps} · {duration}",
    spentTokens: "{tokens} tokens",
    pauseTitle: "Waiting for you",
    paramsReason: "Fill in what the tool needs to continue.",
    approveReason: "This action changes the system. Check it before it runs.",
    approve: "Approve",
    approveAction: "Approve: {action}",
    riskyTitle: "High-risk action: waiting for your approval",
    highRisk: "High risk",
    approvalsCount: "{n} of {required} approvals",
    requesterCannotApprove: "{user} asked, so someone else must approve.",
    egressSources: "Sends data out; the thread read content from: {sources}",
    egressCopied: "Marked text in the args also stands in what {tools} returned.",
    copiedFrom: "from {tool}",
    copiedElsewhere: "Also copied from tool results:",
    untrustedSource: "untrusted source",
    untrustedHint:
      "This result holds content from a tool that is not trusted and may carry instructions: from now on, calls that send data out wait for you.",
    edit: "Edit",
    reject: "Reject",
    continue: "Continue",
    sendAnswers: "Send answers",
    editLabel: "Arguments (JSON)",
    rejectLabel: "Why (optional)",
    choose: "Choose…",
    badJson: "The arguments are not valid JSON.",
    answered: "You answered:",
    tokenLabel: "API token",
    tokenSave: "Use token",
    ssoLogin: "Sign in with single sign-on",
    emptyThread: "Ask about a service's errors, logs or runbooks. Risky actions wait for your approval.",
    connectionLost: "Connection lost; catching up…",
    loadFailed: "Could not load this conversation: {message}",
    unfinished: "The server stopped in the middle of this conversation's last run.",
    recover: "Continue that run",
    choiceRunning: "This conversation is still running. What should happen to your message?",
    choicePaused:
      "This conversation is waiting for your answer above; answer it first. Or choose what happens to your message:",
    waitInQueue: "Wait in queue",
    interruptAndSend: "Interrupt and send",
    cancelChoice: "Cancel",
    waitInQueueHint: "Your message runs after the current run ends, and after any pause is answered.",
    interruptRunningHint: "Stops the current run, then sends your message.",
    interruptPausedHint: "Closes the pause above (its calls are rejected), then sends your message.",
    cancelChoiceHint: "Sends nothing; your text stays in the box.",
    interruptRefused: "Your role may not interrupt this conversation; wait in queue instead.",
    queued: "queued",
    queuedPosition: "queued · position {n}",
    queuedFailed: "not sent: {message}",
    interrupting: "stopping the run, then sending…",
    errorCodes: {
      invalid_args: "invalid arguments",
      unknown_tool: "unknown tool",
      permission_denied: "permission denied",
      not_found: "not found",
      timeout: "timed out",
      transient: "temporary failure",
      rate_limited: "rate limited",
      cancelled: "cancelled",
      rejected_by_user: "rejected by you",
      skipped: "skipped",
      outcome_unknown: "outcome unknown",
      internal: "internal error",
    },
    apiErrors: {
      unauthorized: "This server needs an API token.",
      thread_busy: "This conversation is still running; wait for it or press Stop.",
      thread_paused: "This conversation is waiting for your answer above; answer it first.",
      thread_not_found: "This conversation does not exist or is not yours.",
    },
    stopReasons: {
      final_answer: "answered",
      interrupted: "waiting for you",
      max_steps: "step limit reached",
      timeout: "time limit reached",
      loop_detected: "stopped: repeating itself",
      too_many_fails: "stopped: too many failures",
      budget_exhausted: "budget spent",
      cancelled: "stopped by you",
      error: "failed",
    },
  },
  zh: {
    title: "opspilot · 运维助手",
    newThread: "新对话",
    send: "发送",
    stop: "停止",
    messageLabel: "你的问题",
    placeholder: "例如：看看支付服务最近报错",
    switchLanguage: "English",
    you: "你",
    assistant: "助手",
    step: "第 {n} 步",
    stepCount: { one: "{n} 步", other: "{n} 步" },
    threadsTitle: "对话",
    threadsEmpty: "还没有对话。",
    waitingForYou: "等你处理",
    waitingCount: "{n} 个等你处理",
    threadRunning: "运行中",
    untitled: "（还没有消息）",
    incidentsTitle: "事件",
    firingCount: "{n} 个告警中",
    firing: "告警中",
    resolved: "已恢复",
    incidentsFailed: "无法加载事件：{message}",
    investigationQueued: "排队中",
    investigationRunning: "排查中",
    investigationWaiting: "等待人工处理",
    investigationAnswered: "已回答",
    fullResult: "完整结果",
    loadingResult: "加载中…",
    noStoredResult: "这次调用没有保存的结果。",
    copy: "复制",
    copied: "已复制",
    copyFailed: "复制失败：请选中文字后手动复制。",
    editedBy: "{user} 修改",
    approvedBy: "{user} 批准",
    rejectedBy: "{user} 拒绝",
    rejectedWithReason: "{user} 拒绝了：{reason}",
    rejectedNoReason: "{user} 拒绝了这次调用。",
    confirmReject: "确认拒绝",
    stoppedWhileWaiting: "等待时被停止",
    proposed: "已提出…",
    ok: "成功",
    waiting: "等待你的确认",
    running: "运行中…",
    finished: "{reason} · {steps} · {duration}",
    spentTokens: "{tokens} 个 token",
    pauseTitle: "等待你的确认",
    paramsReason: "请补充工具需要的信息后继续。",
    approveReason: "此操作会改变系统，执行前请确认。",
    approve: "批准",
    approveAction: "批准：{action}",
    riskyTitle: "高风险操作：等待你的批准",
    highRisk: "高风险",
    approvalsCount: "已有 {n}/{required} 个批准",
    requesterCannotApprove: "{user} 是发起人，需要其他人批准。",
    egressSources: "会把数据发送到外部；本线程读过来自以下来源的内容：{sources}",
    egressCopied: "参数中标出的文字也出现在 {tools} 返回的内容里。",
    copiedFrom: "来自 {tool}",
    copiedElsewhere: "另外从工具结果中复制的内容：",
    untrustedSource: "不受信任的来源",
    untrustedHint: "此结果含有来自不受信任工具的内容，可能夹带指令：此后本线程中向外发送数据的调用都会等你确认。",
    edit: "修改",
    reject: "拒绝",
    continue: "继续",
    sendAnswers: "提交回答",
    editLabel: "参数（JSON）",
    rejectLabel: "原因（可选）",
    choose: "请选择…",
    badJson: "参数不是有效的 JSON。",
    answered: "你的回答：",
    tokenLabel: "API 令牌",
    tokenSave: "使用令牌",
    ssoLogin: "单点登录",
    emptyThread: "可以询问服务的报错、日志或处理手册。有风险的操作会先等你批准。",
    connectionLost: "连接中断，正在补齐…",
    loadFailed: "无法加载此对话：{message}",
    unfinished: "上一次运行进行到一半时服务停止了。",
    recover: "继续那次运行",
    choiceRunning: "此对话仍在运行。你的消息要怎么处理？",
    choicePaused: "此对话正在等待你回答上面的问题，请先回答。或者选择如何处理你的消息：",
    waitInQueue: "排队等待",
    interruptAndSend: "打断并发送",
    cancelChoice: "取消",
    waitInQueueHint: "当前运行结束、等待中的问题也回答后，再处理你的消息。",
    interruptRunningHint: "停止当前运行，然后发送你的消息。",
    interruptPausedHint: "关闭上面的等待（其中的调用被拒绝），然后发送你的消息。",
    cancelChoiceHint: "不发送；你的文字留在输入框里。",
    interruptRefused: "你的角色不能打断此对话，请选择排队等待。",
    queued: "排队中",
    queuedPosition: "排队中 · 第 {n} 位",
    queuedFailed: "未发送：{message}",
    interrupting: "正在停止当前运行，然后发送…",
    errorCodes: {
      invalid_args: "参数无效",
      unknown_tool: "未知工具",
      permission_denied: "无权限",
      not_found: "未找到",
      timeout: "超时",
      transient: "临时故障",
      rate_limited: "被限流",
      cancelled: "已取消",
      rejected_by_user: "已被你拒绝",
      skipped: "已跳过",
      outcome_unknown: "结果未知",
      internal: "内部错误",
    },
    apiErrors: {
      unauthorized: "此服务器需要 API 令牌。",
      thread_busy: "此对话仍在运行，请等待或点击停止。",
      thread_paused: "此对话正在等待你回答上面的问题，请先回答。",
      thread_not_found: "此对话不存在或不属于你。",
    },
    stopReasons: {
      final_answer: "已回答",
      interrupted: "等待你的确认",
      max_steps: "达到步数上限",
      timeout: "达到时间上限",
      loop_detected: "已停止：重复操作",
      too_many_fails: "已停止：失败过多",
      budget_exhausted: "预算已用完",
      cancelled: "已被你停止",
      error: "出错",
    },
  },
};

const STORAGE_KEY = "opspilot.lang";
let language = pickLanguage();

function pickLanguage() {
  const stored = window.localStorage.getItem(STORAGE_KEY);
  if (stored === "zh" || stored === "en") return stored;
  return (navigator.language || "en").toLowerCase().startsWith("zh") ? "zh" : "en";
}

/** The current UI language, "zh" or "en". */
export function currentLanguage() {
  return language;
}

/** Switches the language and remembers the choice. */
export function toggleLanguage() {
  language = language === "zh" ? "en" : "zh";
  window.localStorage.setItem(STORAGE_KEY, language);
}

/** A label with `{name}` placeholders filled; a label with plural forms picks one by `values.n`. */
export function t(key, values = {}) {
  let text = LABELS[language][key] ?? LABELS.en[key] ?? key;
  if (typeof text === "object")
    text = new Intl.PluralRules(language).select(values.n ?? 0) === "one" ? text.one : text.other;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
}

/** An error code in words. */
export function errorCodeText(code) {
  return LABELS[language].errorCodes[code] ?? code;
}

/** An API refusal in words, or undefined when the server's own message says more. */
export function apiErrorText(code) {
  return LABELS[language].apiErrors[code];
}

/** A stop reason in words. */
export function stopReasonText(reason) {
  return LABELS[language].stopReasons[reason] ?? reason;
}

/** Fills every `[data-label]` text and `[data-label-placeholder]` in the page. */
export function applyStaticLabels(root = document) {
  document.documentElement.lang = language === "zh" ? "zh-CN" : "en";
  for (const element of root.querySelectorAll("[data-label]")) element.textContent = t(element.dataset.label);
  for (const element of root.querySelectorAll("[data-label-placeholder]"))
    element.placeholder = t(element.dataset.labelPlaceholder);
}
