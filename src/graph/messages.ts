/**
 * User-facing texts of the supervisor in Chinese and English. No agent id or
 * intent code ever goes into them: agents are named by their card `name`.
 */
import { cardName } from '../registry/localized-text.js';
import type { AgentCard, SemanticKeySpec } from '../registry/types.js';

export type Language = 'zh' | 'en';

const TEXTS = {
  intentStart: { zh: '正在分析您的需求...', en: 'Analysing your request...' },
  planStart: { zh: '正在为您制定执行方案...', en: 'Planning how to handle your request...' },
  summarizeStart: {
    zh: (done: number) => (done > 0 ? `已成功完成${done}项任务。正在为您整理结果...` : '正在为您整理结果...'),
    en: (done: number) => (done > 0 ? `${done} task(s) completed. Putting the results together...` : 'Putting the results together...'),
  },
  agentStart: { zh: (name: string) => `正在为您处理${name}...`, en: (name: string) => `Working on ${name}...` },
  agentDone: { zh: (name: string) => `${name}已完成。`, en: (name: string) => `${name} is done.` },
  agentFailed: {
    zh: (name: string, why: string) => `${name}暂时无法完成（${why}）。`,
    en: (name: string, why: string) => `${name} could not be completed (${why}).`,
  },
} as const;

export function intentStartText(language: Language): string {
  return TEXTS.intentStart[language];
}
export function planStartText(language: Language): string {
  return TEXTS.planStart[language];
}
export function summarizeStartText(language: Language, completed: number): string {
  return TEXTS.summarizeStart[language](completed);
}
export function agentStartText(language: Language, card: AgentCard): string {
  return TEXTS.agentStart[language](cardName(card, language));
}
export function agentDoneText(language: Language, card: AgentCard): string {
  return TEXTS.agentDone[language](cardName(card, language));
}
export function agentFailedText(language: Language, card: AgentCard, why: string): string {
  return TEXTS.agentFailed[language](cardName(card, language), why);
}

const FAILURE_REASONS: Record<string, { zh: string; en: string }> = {
  timeout: { zh: '服务响应超时', en: 'the service timed out' },
  connect_error: { zh: '服务暂时不可用', en: 'the service is unavailable' },
  http_status: { zh: '服务返回错误', en: 'the service returned an error' },
  bad_body: { zh: '服务返回了无法识别的结果', en: 'the service sent an unreadable reply' },
  too_large: { zh: '服务返回的结果过大', en: 'the service reply was too large' },
  output_schema: { zh: '服务返回的结果不完整', en: 'the service reply was incomplete' },
  stream_incomplete: { zh: '服务中途断开', en: 'the service stopped mid-way' },
  aborted: { zh: '请求已取消', en: 'the request was cancelled' },
  agent_failed: { zh: '服务处理失败', en: 'the service could not handle it' },
  dependency: { zh: '它依赖的任务未完成', en: 'a task it depends on did not complete' },
};

/** A short user-facing reason for an agent failure code. */
export function failureReasonText(language: Language, code: string): string {
  return (FAILURE_REASONS[code] ?? FAILURE_REASONS.agent_failed!)[language];
}

/** Example values for a key: its enum values, else a typical value of its type, else a card example. */
export function keyExamples(spec: SemanticKeySpec, card: AgentCard, now: Date, language: Language): string[] {
  const extract = spec.extract;
  switch (extract.type) {
    case 'enum':
      return extract.values.slice(0, 3);
    case 'date': {
      const tomorrow = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1);
      const iso = `${tomorrow.getFullYear()}-${String(tomorrow.getMonth() + 1).padStart(2, '0')}-${String(tomorrow.getDate()).padStart(2, '0')}`;
      return language === 'zh' ? ['明天', iso] : ['tomorrow', iso];
    }
    case 'number':
      return [String(extract.min ?? 1)];
    case 'phone':
      return ['13800138000'];
    case 'email':
      return ['name@example.com'];
    default:
      return card.examples.slice(0, 1);
  }
}
