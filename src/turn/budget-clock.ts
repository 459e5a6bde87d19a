/**
 * A running turn's budgets (docs/api.md#registry-file `supervisor.budgets`):
 * the budget the graph's nodes obey, made from the snapshot the turn started
 * on. Past `max_turn_ms` the turn is not cancelled at once — it gets a grace
 * period to give its quick answer — and only a turn that ignores the deadline
 * is stopped outright.
 */
import type { Logger } from '../logger.js';
import type { RegistrySnapshot } from '../registry/index.js';
import { createTurnBudget, type BudgetName, type TurnBudget } from '../graph/index.js';

/** What a turn's budgets are started with. */
export interface TurnBudgetsOptions {
  snapshot: RegistrySnapshot;
  logger: Logger;
  traceId: string;
  onReached?: (budget: BudgetName) => void;
  /** Aborted with `max_turn_ms` when the grace period after the deadline ends. */
  controller: AbortController;
  graceMs: number;
}

/** One turn's budgets while it runs. */
export interface TurnBudgets {
  budget: TurnBudget;
  /** `budget_stops` for the closing events, when a budget was reached. */
  state(): Record<string, unknown>;
  /** Stops the clocks (the graph has returned). */
  stop(): void;
}

/** Starts the budgets of one turn. */
export function startTurnBudgets(options: TurnBudgetsOptions): TurnBudgets {
  const { controller } = options;
  const budget = createTurnBudget({ limits: options.snapshot.supervisor.budgets, logger: options.logger, traceId: options.traceId, onReached: options.onReached });
  // Past the deadline the turn gets a grace period to give its answer; then it is stopped outright.
  let graceTimer: NodeJS.Timeout | undefined;
  budget.deadline.addEventListener(
    'abort',
    () => {
      graceTimer = setTimeout(() => {
        if (!controller.signal.aborted) controller.abort('max_turn_ms');
      }, options.graceMs);
    },
    { once: true },
  );
  return {
    budget,
    state: () => {
      const reached = budget.reached();
      return reached.length > 0 ? { budget_stops: reached } : {};
    },
    stop: () => {
      budget.dispose();
      clearTimeout(graceTimer);
    },
  };
}
