/**
 * What the answer says when a turn reached one of its budgets (docs/api.md#registry-file
 * `supervisor.budgets`): which tasks were not done and why, or that the rest
 * was handled the simple way. One sentence per budget; they open the answer.
 */
import { type Language, quotedList } from './language.js';

/** Milliseconds as seconds with at most one decimal. */
function seconds(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}

/** The plan had more runnable tasks than `max_subtasks`; `labels` name the ones cut. */
export function subtaskBudgetText(max: number, labels: readonly string[], language: Language): string {
  const items = quotedList(labels, language);
  return language === 'zh'
    ? `您的请求包含的任务较多，单次最多处理${max}项，以下没有处理：${items}。如仍需要，请再单独告诉我。`
    : `Your request had more tasks than I handle at once (at most ${max}), so these were not done: ${items}. Ask for them again if you still need them.`;
}

/** The turn reached `max_turn_ms`; `labels` name the tasks stopped or never started (may be empty). */
export function turnTimeBudgetText(maxTurnMs: number, labels: readonly string[], language: Language): string {
  const limit = seconds(maxTurnMs);
  if (labels.length === 0) {
    return language === 'zh' ? `本次处理已达到时间上限（${limit}秒），回答已简化。` : `This request reached its time limit (${limit} s), so the answer is a simplified one.`;
  }
  const items = quotedList(labels, language);
  return language === 'zh'
    ? `本次处理已达到时间上限（${limit}秒），以下未完成的任务已停止：${items}。下面是已完成部分的结果。`
    : `This request reached its time limit (${limit} s), so unfinished tasks were stopped: ${items}. Below is what was completed.`;
}

/** The turn's model calls used `max_llm_tokens`: the rest came from templates. */
export function tokenBudgetText(language: Language): string {
  return language === 'zh' ? '本次请求的模型用量已达上限，其余部分改用简化方式处理。' : 'This request reached its model usage limit, so the rest was handled in a simplified way.';
}

