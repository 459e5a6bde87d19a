/**
 * Texts of a turn as a whole: why it stopped before its answer, that it
 * failed, and the note that a value came from the user's profile.
 */
import type { Language } from './language.js';

/** Why a running turn stopped, when the user is told (a client that went away is not). */
export type StopNoticeReason = 'server_shutdown' | 'lease_lost' | 'user_cancel' | 'max_turn_ms';

const STOPPED: Record<StopNoticeReason, Record<Language, string>> = {
  server_shutdown: {
    zh: '服务正在重启，本轮处理已取消，请稍后重试。',
    en: 'The service is restarting, so this request was cancelled. Please try again in a moment.',
  },
  lease_lost: {
    zh: '本轮处理已中断，请重新发送您的请求。',
    en: 'This request was interrupted. Please send it again.',
  },
  user_cancel: { zh: '已取消本轮处理。', en: 'The request was cancelled.' },
  // Still running well past `budgets.max_turn_ms` (something ignored the deadline): stopped outright.
  max_turn_ms: {
    zh: '本次处理已达到时间上限，已停止。请稍后重试，或分几次提出您的需求。',
    en: 'This request reached its time limit and was stopped. Please try again, or ask for less at once.',
  },
};

/** The final text of a turn stopped for `reason`. */
export function turnStoppedText(reason: StopNoticeReason, language: Language): string {
  return STOPPED[reason][language];
}

/** The final text of a turn that failed on a fault of ours. */
export function turnFailedText(language: Language): string {
  return language === 'zh' ? '抱歉，处理您的请求时出现了问题，请稍后再试。' : 'Sorry, something went wrong while handling your request. Please try again.';
}

/** After a held task's summary: which of its values came from the user's profile ("——使用您常用的入住城市 上海，如需更换请直接告诉我"). */
export function profileValueText(language: Language, values: readonly { description: string; value: string }[]): string {
  const items = values.map((item) => `${item.description} ${item.value}`);
  if (language === 'zh') return `——使用您常用的${items.join('、')}，如需更换请直接告诉我`;
  return ` — using your usual ${items.join(', ')}; say another to change it`;
}

/** That values came from the user's profile ("using your usual city 上海 — say another if not"). */
export function profileUsedText(language: Language, values: readonly { description: string; value: string | number }[]): string {
  const items = values.map((item) => `${item.description} ${item.value}`);
  if (language === 'zh') return `已按您常用的${items.join('、')} 为您处理，如需更换请告诉我。`;
  return `Using your usual ${items.join(', ')} — say another if not.`;
}
