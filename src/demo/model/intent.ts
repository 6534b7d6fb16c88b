import { detectLanguage, type Language } from "../../contracts/language.js";
import { readAlert } from "./incident/alert-text.js";
import { alertIntent } from "./incident/incident-intent.js";
import type { Intent, IntentKind } from "./intent-types.js";
import { readSilenceRequest } from "./incident/silence.js";

export type { Intent, IntentKind } from "./intent-types.js";

const PATTERNS = {
  rollback: /回滚|回退|\broll(?:ing)?[ -]?back\b|\brevert\b/i,
  restart: /重启|\brestart|\breboot|\bbounce\b/i,
  investigate:
    /报错|错误|异常|故障|告警|日志|失败|\berrors?\b|\bexceptions?\b|\bfail(?:ing|ures?|ed)?\b|\blogs?\b|\b5\d\d\b/i,
  // Names of figures: a question that asks for one wants the metrics even when it says "error".
  figures: /错误率|\berror[ -]rate\b|\bp(?:50|90|95|99)\b|\blatency\b|延迟|延时/i,
  metrics: /指标|监控|延迟|延时|负载|\bcpu\b|内存|\bqps\b|\bmetrics?\b|\blatency\b|\bmemory\b|\bhealth\b|怎么样|状态/i,
  docs: /文档|手册|处理建议|建议|预案|\brunbooks?\b|\bdocs?\b|\bdocumentation\b|\badvice\b|\bplaybooks?\b|怎么处理|how (?:do|to|should) (?:i|we) (?:handle|fix)/i,
  thanks: /谢谢|多谢|感谢|\bthanks?\b|\bthank you\b|\bthx\b/i,
  greeting:
    /^(?:你好|您好|嗨|哈喽|早上好|下午好|晚上好|hi|hello|hey|good (?:morning|afternoon|evening))(?:呀|啊)?[\s!！。.,，~]*$/i,
};

const ZH_FILLERS = [
  "那么",
  "那",
  "还有",
  "再看看",
  "再查查",
  "再",
  "帮我看看",
  "帮忙看看",
  "看一下",
  "看看",
  "看下",
  "查看",
  "查一下",
  "查查",
  "查下",
  "检查",
  "帮我",
  "帮忙",
  "请",
  "麻烦",
  "重启一下",
  "重启",
  "回滚一下",
  "回滚",
  "把",
  "给",
  "一下",
  "我们的",
  "我们",
  "线上的",
  "线上",
  "生产环境",
  "测试环境",
  "预发环境",
  "生产",
  "测试",
  "预发",
  "环境",
  "上的",
  "里的",
  "的",
];
const EN_STOPWORDS = new Set([
  "the",
  "a",
  "an",
  "our",
  "my",
  "this",
  "that",
  "it",
  "check",
  "restart",
  "rollback",
  "back",
  "roll",
  "prod",
  "production",
  "staging",
  "of",
  "for",
  "in",
  "runbook",
  "runbooks",
  "docs",
  "documentation",
]);

/** The request with every figure's name taken out ("error rate" no longer reads as "error"). */
function withoutFigures(text: string): string {
  return text.replace(new RegExp(PATTERNS.figures.source, "gi"), " ");
}

/** Reads the intent of one user request. */
export function detectIntent(text: string): Intent {
  const language = detectLanguage(text);
  const alert = readAlert(text);
  if (alert) return alertIntent(alert, language);
  const serviceQuery = extractServiceQuery(text, language);
  const wantsDocs = PATTERNS.docs.test(text);
  const base = {
    language,
    serviceQuery,
    environment: extractEnvironment(text),
    wantsDocs,
    // An error code names what to look up more precisely than a service does.
    docsQuery: extractErrorCode(text) ?? serviceQuery,
  };
  const silence = readSilenceRequest(text);
  if (silence) return { ...base, kind: "silence", silence };
  if (PATTERNS.rollback.test(text)) return { ...base, kind: "rollback", toVersion: extractVersion(text) };
  if (PATTERNS.restart.test(text)) return { ...base, kind: "restart" };
  if (PATTERNS.figures.test(text) && serviceQuery && !PATTERNS.investigate.test(withoutFigures(text)))
    return { ...base, kind: "metrics" };
  if (PATTERNS.investigate.test(text)) return { ...base, kind: "investigate" };
  if (PATTERNS.metrics.test(text) && serviceQuery) return { ...base, kind: "metrics" };
  if (wantsDocs) return { ...base, kind: "docs", docsQuery: base.docsQuery ?? text.trim().slice(0, 80) };
  if (PATTERNS.greeting.test(text.trim())) return { ...base, kind: "greeting" };
  if (PATTERNS.thanks.test(text)) return { ...base, kind: "thanks" };
  return { ...base, kind: "help" };
}

/** What a follow-up may carry over from an earlier question (an alert's investigation is carried as one). */
const CARRIED_KINDS: ReadonlySet<IntentKind> = new Set([
  "investigate",
  "metrics",
  "docs",
  "restart",
  "rollback",
  "alert",
]);

/**
 * A request that only names a service ("and the order service?", "那订单服务呢？") asks the
 * previous question again about that service: the intent of the latest earlier request
 * that asked something is carried over, with the new service. The environment is carried
 * for reads only; a restart or rollback of another service asks for its own.
 */
export function followUp(intent: Intent, earlier: readonly string[]): Intent {
  if (intent.kind !== "help" || !intent.serviceQuery) return intent;
  const previous = earlier.map(detectIntent).find((candidate) => CARRIED_KINDS.has(candidate.kind));
  if (!previous) return intent;
  const reads = ["investigate", "metrics", "docs", "alert"].includes(previous.kind);
  return {
    ...intent,
    kind: previous.kind === "alert" ? "investigate" : previous.kind,
    wantsDocs: previous.wantsDocs,
    docsQuery: intent.serviceQuery,
    environment: intent.environment ?? (reads ? previous.environment : undefined),
  };
}

/** The environment the user named, if any: never guessed. */
function extractEnvironment(text: string): "prod" | "staging" | undefined {
  if (/生产|线上|正式环境|\bprod(?:uction)?\b/i.test(text)) return "prod";
  if (/预发|测试|\bstag(?:ing|e)\b/i.test(text)) return "staging";
  return undefined;
}

/** Words naming the service: the phrase before 服务 / "service", or an id written as-is. */
function extractServiceQuery(text: string, language: Language): string | undefined {
  const literalId = /\b[a-z][a-z0-9]*(?:-[a-z0-9]+)+\b/.exec(text)?.[0];
  if (literalId && !/^roll-?back$/i.test(literalId)) return literalId;
  return language === "zh" ? zhServicePhrase(text) : enServicePhrase(text);
}

function zhServicePhrase(text: string): string | undefined {
  for (const match of text.matchAll(/([\p{Script=Han}A-Za-z0-9]+?)(?:服务|系统|模块)/gu)) {
    let phrase = match[1]!;
    for (let changed = true; changed;) {
      changed = false;
      for (const filler of ZH_FILLERS) {
        if (phrase.startsWith(filler) && phrase.length > filler.length) {
          phrase = phrase.slice(filler.length);
          changed = true;
        }
      }
    }
    phrase = phrase.replace(/的$/, "").slice(-8);
    if (phrase && !ZH_FILLERS.includes(phrase)) return phrase;
  }
  return undefined;
}

function enServicePhrase(text: string): string | undefined {
  const patterns = [
    /\b([a-z][a-z0-9_]*)(?:'s)?\s+(?:service|svc|api|app|gateway)\b/gi,
    /\b(?:restart|roll ?back|rollback|check|errors? (?:in|of|for|from)|metrics (?:of|for))\s+(?:the\s+)?([a-z][a-z0-9_]*)\b/gi,
  ];
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) {
      const word = match[1]!.toLowerCase();
      if (!EN_STOPWORDS.has(word)) return word;
    }
  }
  return undefined;
}

function extractVersion(text: string): string | undefined {
  return /(?:到|至|\bto\s+(?:version\s+)?)\s*(v?\d+(?:\.\d+){1,3}(?:[-+][\w.]+)?)/i.exec(text)?.[1];
}

function extractErrorCode(text: string): string | undefined {
  return /\b[A-Z][A-Z0-9]*[-_][A-Z0-9_-]+\b|\b[A-Z]{2,}\d{2,}\b/.exec(text)?.[0];
}
