/**
 * The one-sentence notices a turn gives about parked tasks it dropped or did
 * not run (expired, replaced by a new topic, cancelled, rejected, no longer
 * available, a confirmation that matched nothing), and the texts of asking
 * for and acting on a confirmation. `labels` are what the user knows each
 * task by: its confirmation summary, else the service name.
 */
import { type Language, quotedList } from './language.js';

function duration(seconds: number, language: Language): string {
  if (seconds % 60 === 0) {
    const minutes = seconds / 60;
    return language === 'zh' ? `${minutes}分钟` : `${minutes} minute${minutes === 1 ? '' : 's'}`;
  }
  return language === 'zh' ? `${seconds}秒` : `${seconds} seconds`;
}

const NOTICES = {
  expired: {
    zh: (items: string, ttl: string) => `您之前未完成的${items}已超过${ttl}未处理，已自动取消，没有执行。`,
    en: (items: string, ttl: string) => `Your earlier unfinished request (${items}) waited more than ${ttl} and has been cancelled; nothing was done.`,
  },
  topicSwitch: {
    zh: (items: string) => `您之前未完成的${items}已取消，不再继续。`,
    en: (items: string) => `Your earlier unfinished request (${items}) has been dropped.`,
  },
  cancelled: {
    zh: (items: string) => `好的，已为您取消未完成的${items}，没有执行。`,
    en: (items: string) => `OK, I have cancelled your unfinished request (${items}); nothing was done.`,
  },
  rejected: {
    zh: (items: string) => `好的，已取消${items}，没有执行。`,
    en: (items: string) => `OK, cancelled (${items}); nothing was done.`,
  },
  unavailable: {
    zh: (items: string) => `抱歉，${items}所需的服务目前已停用或下线，该操作没有执行，已为您取消。`,
    en: (items: string) => `Sorry, the service needed for (${items}) is no longer available, so it was not done and has been cancelled.`,
  },
  outdated: {
    zh: (items: string) => `抱歉，服务的可选项已更新，${items}中的信息已不再有效，该操作没有执行，已为您取消；如仍需要，请重新告诉我。`,
    en: (items: string) => `Sorry, the service's options have changed and (${items}) no longer fits them, so it was not done and has been cancelled; please ask again if you still want it.`,
  },
} as const;

/** Why parked tasks were dropped without running. */
export type NoticeKind = keyof typeof NOTICES;

/** The notice of `kind` for the dropped tasks known by `labels`; `ttlSeconds` is the parking limit (for `expired`). */
export function noticeText(kind: NoticeKind, labels: readonly string[], language: Language, ttlSeconds = 0): string {
  return NOTICES[kind][language](quotedList(labels, language), duration(ttlSeconds, language));
}

/** Nothing was parked when the user said a cancel word. */
export function nothingToCancelText(language: Language): string {
  return language === 'zh' ? '好的。当前没有等待处理的请求。' : 'OK. There is nothing waiting to be cancelled.';
}

/** A yes or no word when nothing is parked or held: nothing is done, and the user is told so. */
export function nothingToConfirmText(language: Language): string {
  return language === 'zh' ? '好的。当前没有需要您确认的操作。如需办理，请告诉我您的需求。' : 'OK. There is nothing waiting for your confirmation; tell me what you need.';
}

/** A confirmation named tasks that are not awaiting confirmation (already handled, never parked, or forged). */
export function unknownConfirmationText(language: Language): string {
  return language === 'zh'
    ? '没有找到与这次确认对应的待确认操作（可能已处理或已失效），因此没有执行任何操作。'
    : 'I found no action awaiting confirmation that matches this reply (it may have been handled already or expired), so nothing was done.';
}

/** A yes with nothing to confirm right after the confirmation expired. */
export function askAgainText(language: Language): string {
  return language === 'zh' ? '如需办理，请重新告诉我您的需求。' : 'If you still want it, please ask again.';
}

/** The plan_done text of a confirmation turn. */
export function runningConfirmedText(labels: readonly string[], language: Language): string {
  const items = quotedList(labels, language);
  return language === 'zh' ? `好的，已收到您的确认，正在为您办理${items}。` : `Thanks for confirming. Working on it now: ${items}.`;
}

/** How the user confirms: the closing line of an answer that holds tasks for confirmation. */
export function confirmationPromptText(summaries: readonly string[], language: Language): string {
  if (language === 'zh') {
    return `以下操作需要您确认后才会执行：\n${summaries.map((summary) => `- ${summary}`).join('\n')}\n回复“确认”执行，或回复“取消”放弃。`;
  }
  return `These actions run only after you confirm them:\n${summaries.map((summary) => `- ${summary}`).join('\n')}\nReply "confirm" to go ahead, or "cancel" to drop them.`;
}

/** What an undescribed date input is called in a confirmation summary (rather than its key name). */
export function dateLabelText(language: Language): string {
  return language === 'zh' ? '日期' : 'date';
}

/** "酒店服务：帮我订北京的酒店（入住城市：北京，入住日期：2026-12-01）" — what will be done, with its inputs. */
export function confirmationSummaryText(language: Language, service: string, what: string, inputs: readonly { label: string; value: string }[]): string {
  const zh = language === 'zh';
  const pairs = inputs.map((input) => `${input.label}${zh ? '：' : ': '}${input.value}`);
  const details = pairs.length > 0 ? (zh ? `（${pairs.join('，')}）` : ` (${pairs.join(', ')})`) : '';
  return `${service}${zh ? '：' : ': '}${what}${details}`;
}
