/**
 * One turn's budgets (docs/api.md#registry-file `supervisor.budgets`): how many
 * sub-tasks it may send, how many model tokens it may use, how long it may
 * run. Made by the turn runner from the snapshot the turn started on, handed
 * to the nodes through the turn context.
 *
 * The time budget is a second signal beside the turn's own: when it fires,
 * sub-agent calls in flight are aborted and nothing new starts, but the turn
 * itself is not cancelled — it goes on to a quick offline answer that says
 * what was not done. (Cancelling the turn's own signal would end it with no
 * answer at all.) Each budget is reported once per turn when first reached:
 * logged, counted, and listed in the final event.
 */
import type { Logger } from '../logger.js';
import type { LlmBudget } from '../llm/index.js';
import type { TurnBudgets } from '../registry/index.js';

/** A per-turn budget by its registry name. */
export type BudgetName = 'max_subtasks' | 'max_llm_tokens' | 'max_turn_ms';

/** The live budget state of one turn. */
export interface TurnBudget {
  readonly limits: TurnBudgets;
  /** Aborted once the turn ran for `max_turn_ms`. */
  readonly deadline: AbortSignal;
  /** The model side, to put on the turn's `LlmUsage`. */
  readonly llm: LlmBudget;
  /** Budgets reached so far, in the order they were reached. */
  reached(): BudgetName[];
  /** Marks a budget reached (idempotent: logged and reported once). */
  reach(budget: BudgetName, detail?: Record<string, unknown>): void;
  /** Stops the deadline timer (the turn is over). */
  dispose(): void;
}

/** What a turn's budget is made from: the snapshot's limits, and where stops are reported. */
export interface TurnBudgetOptions {
  limits: TurnBudgets;
  logger: Logger;
  traceId: string;
  /** Called once per budget the first time it is reached (metrics). */
  onReached?: (budget: BudgetName) => void;
}

/** Starts the turn's budget clock. */
export function createTurnBudget(options: TurnBudgetOptions): TurnBudget {
  const { limits, logger, traceId } = options;
  const reached: BudgetName[] = [];
  const deadline = new AbortController();
  const reach = (budget: BudgetName, detail: Record<string, unknown> = {}): void => {
    if (reached.includes(budget)) return;
    reached.push(budget);
    logger.warn({ traceId, budget, limit: limitOf(limits, budget), ...detail }, 'turn budget reached; remaining work stopped');
    options.onReached?.(budget);
  };
  const timer = setTimeout(() => {
    reach('max_turn_ms');
    deadline.abort('max_turn_ms');
  }, limits.maxTurnMs);
  timer.unref?.();
  return {
    limits,
    deadline: deadline.signal,
    llm: { maxTokens: limits.maxLlmTokens, deadline: deadline.signal, refused: (budget) => reach(budget) },
    reached: () => [...reached],
    reach,
    dispose: () => clearTimeout(timer),
  };
}

function limitOf(limits: TurnBudgets, budget: BudgetName): number {
  if (budget === 'max_subtasks') return limits.maxSubtasks;
  if (budget === 'max_llm_tokens') return limits.maxLlmTokens;
  return limits.maxTurnMs;
}
