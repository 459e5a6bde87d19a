/**
 * What the user knows a parked task by, for the notices about tasks a turn
 * dropped or runs (the sentences themselves live in `i18n/notice-texts.ts`).
 */
import { type Language, subtaskBudgetText, tokenBudgetText, turnTimeBudgetText, unknownServiceText } from '../../i18n/index.js';
import { cardName, type RegistrySnapshot, type TurnBudgets } from '../../registry/index.js';
import type { SubTask, TaskOutcome } from '../../planning/index.js';
import type { PendingTask } from '../state.js';
import type { BudgetName } from '../turn-budget.js';

/** Each task's confirmation summary, else its service name in `language`. */
export function parkedTaskLabels(tasks: readonly PendingTask[], snapshot: RegistrySnapshot, language: Language): string[] {
  return tasks.map((task) => {
    if (task.confirmation) return task.confirmation.summary;
    const card = snapshot.byId.get(task.agent_id);
    return card ? cardName(card, language) : unknownServiceText(language);
  });
}

/** What a turn's budget notices are made from. */
export interface BudgetNoticeInput {
  /** Budgets the turn reached, in order. */
  reached: readonly BudgetName[];
  limits: TurnBudgets;
  /** The plan's tasks and their outcomes (none for a turn without a plan). */
  tasks?: readonly SubTask[];
  outcomes?: Readonly<Record<string, TaskOutcome>>;
  snapshot: RegistrySnapshot;
  language: Language;
}

/**
 * One sentence per budget the turn reached (docs/api.md#registry-file `budgets`), naming
 * the services of the tasks it stopped. They open the answer, so the user
 * knows the result is partial.
 */
export function budgetNotices(input: BudgetNoticeInput): string[] {
  const { language, snapshot } = input;
  const stoppedBy = (reason: string): string[] =>
    (input.tasks ?? [])
      .filter((task) => input.outcomes?.[task.task_id]?.reason === reason)
      .map((task) => {
        const card = snapshot.byId.get(task.assigned_agent);
        return card ? cardName(card, language) : unknownServiceText(language);
      });
  return input.reached.map((budget) => {
    if (budget === 'max_subtasks') return subtaskBudgetText(input.limits.maxSubtasks, stoppedBy('max_subtasks'), language);
    if (budget === 'max_turn_ms') return turnTimeBudgetText(input.limits.maxTurnMs, stoppedBy('max_turn_ms'), language);
    return tokenBudgetText(language);
  });
}
