/**
 * The thinking texts of a turn's stages (intent, plan, agent, summarize) and
 * the short reasons a sub-task failed. Names passed in are the agents' card
 * names in the turn's language; no agent id or intent code ever goes in.
 */
import type { Bilingual, Language } from './language.js';

const TEXTS = {
  intentStart: { zh: () => '正在分析您的需求...', en: () => 'Analysing your request...' },
  replyRead: { zh: () => '已收到您的回复。', en: () => 'Got your reply.' },
  planStart: { zh: () => '正在为您制定执行方案...', en: () => 'Planning how to handle your request...' },
  confirmedPlanStart: { zh: () => '正在准备执行您确认的操作...', en: () => 'Preparing the confirmed actions...' },
  summarizeStart: {
    zh: (done: number) => (done > 0 ? `已成功完成${done}项任务。正在为您整理结果...` : '正在为您整理结果...'),
    en: (done: number) => (done > 0 ? `${done} task(s) completed. Putting the results together...` : 'Putting the results together...'),
  },
  agentStart: { zh: (name: string) => `正在为您处理${name}...`, en: (name: string) => `Working on ${name}...` },
  agentDone: { zh: (name: string) => `${name}已完成。`, en: (name: string) => `${name} is done.` },
  staleReply: {
    zh: (name: string, age: string) => `${name}暂时无法访问，以下是${age}前的结果：`,
    en: (name: string, age: string) => `${name} is unavailable right now; this answer is from ${age} ago:`,
  },
  agentFailed: {
    zh: (name: string, why: string) => `${name}暂时无法完成（${why}）。`,
    en: (name: string, why: string) => `${name} could not be completed (${why}).`,
  },
} satisfies Record<string, Bilingual<never[]>>;

/** intent_start. */
export function intentStartText(language: Language): string {
  return TEXTS.intentStart[language]();
}
/** intent_done of a turn the control step answers itself (a yes, a no, a cancel word). */
export function replyReadText(language: Language): string {
  return TEXTS.replyRead[language]();
}
/** plan_start of an ordinary turn. */
export function planStartText(language: Language): string {
  return TEXTS.planStart[language]();
}
/** plan_start of a turn that runs tasks the user just confirmed. */
export function confirmedPlanStartText(language: Language): string {
  return TEXTS.confirmedPlanStart[language]();
}
/** summarize_start, with how many sub-tasks completed. */
export function summarizeStartText(language: Language, completed: number): string {
  return TEXTS.summarizeStart[language](completed);
}
/** agent_start of the service called `name`. */
export function agentStartText(language: Language, name: string): string {
  return TEXTS.agentStart[language](name);
}
/** agent_done of a service that sent no message of its own. */
export function agentDoneText(language: Language, name: string): string {
  return TEXTS.agentDone[language](name);
}
/** The lead of a cached answer served because the call to `name` failed, `ageS` seconds after it was stored. */
export function staleReplyText(language: Language, name: string, ageS: number): string {
  return TEXTS.staleReply[language](name, ageText(language, ageS));
}

function ageText(language: Language, ageS: number): string {
  const [amount, unit] =
    ageS < 90 ? [Math.max(1, Math.round(ageS)), 0] : ageS < 90 * 60 ? [Math.round(ageS / 60), 1] : [Math.round(ageS / 3600), 2];
  if (language === 'zh') return `${amount} ${['秒', '分钟', '小时'][unit]}`.replace(' ', '');
  const word = ['second', 'minute', 'hour'][unit]!;
  return `${amount} ${word}${amount === 1 ? '' : 's'}`;
}
/** agent_failed of the service called `name`, with a reason from {@link failureReasonText}. */
export function agentFailedText(language: Language, name: string, why: string): string {
  return TEXTS.agentFailed[language](name, why);
}

const FAILURE_REASONS: Record<string, Record<Language, string>> = {
  timeout: { zh: '服务响应超时', en: 'the service timed out' },
  connect_error: { zh: '服务暂时不可用', en: 'the service is unavailable' },
  http_status: { zh: '服务返回错误', en: 'the service returned an error' },
  bad_body: { zh: '服务返回了无法识别的结果', en: 'the service sent an unreadable reply' },
  too_large: { zh: '服务返回的结果过大', en: 'the service reply was too large' },
  output_schema: { zh: '服务返回的结果不完整', en: 'the service reply was incomplete' },
  stream_incomplete: { zh: '服务中途断开', en: 'the service stopped mid-way' },
  aborted: { zh: '请求已取消', en: 'the request was cancelled' },
  agent_failed: { zh: '服务处理失败', en: 'the service could not handle it' },
  agent_unavailable: { zh: '该服务已下线', en: 'the service is no longer available' },
  circuit_open: { zh: '该服务近期多次出错，已暂停调用，稍后会自动恢复', en: 'the service failed repeatedly and is paused for now; it will be tried again shortly' },
  dependency: { zh: '它依赖的任务未完成', en: 'a task it depends on did not complete' },
  max_subtasks: { zh: '超出单次请求可处理的任务数量上限', en: 'the request had more tasks than can be handled at once' },
  max_turn_ms: { zh: '本次处理时间已达上限', en: 'the time limit for this request was reached' },
};

/** A short user-facing reason for a sub-task failure code (unknown codes read as a plain failure). */
export function failureReasonText(language: Language, code: string): string {
  return (FAILURE_REASONS[code] ?? FAILURE_REASONS.agent_failed!)[language];
}
