/**
 * User-facing texts of the verify step: its event contents and the reason a
 * task's result does not answer, for the answer's "not done" list.
 */
import type { Language } from './language.js';

/** verify_start. */
export function verifyStartText(language: Language): string {
  return language === 'zh' ? '正在核对结果是否回答了您的问题...' : 'Checking that the results answer your request...';
}

/** verify_done, after `retried` sub-tasks were sent again. */
export function verifyDoneText(language: Language, sufficient: boolean, retried: number): string {
  if (sufficient) return language === 'zh' ? (retried > 0 ? '已重新查询，结果已核对。' : '结果已核对。') : retried > 0 ? 'Asked again; results checked.' : 'Results checked.';
  return language === 'zh' ? '部分结果未能回答您的问题。' : 'Some results do not answer your request.';
}

/** Why a task's result does not answer, for the answer. */
export function missingReasonText(language: Language, reason: 'empty' | 'nothing_found' | 'judged'): string {
  const zh = { empty: '没有返回任何结果', nothing_found: '没有找到相关结果', judged: '结果未能回答您的问题' } as const;
  const en = { empty: 'returned no result', nothing_found: 'found nothing matching', judged: 'did not answer your request' } as const;
  return (language === 'zh' ? zh : en)[reason];
}
