/**
 * Per-turn model budgets (docs/api.md#registry-file `budgets.max_llm_tokens` and the
 * model side of `max_turn_ms`), enforced around any gateway so every caller
 * (intent, verify, answer) is covered without knowing about budgets.
 *
 * The limit travels with the turn's `LlmUsage` (`usage.budget`), which every
 * call already carries. A call is refused before anything is sent when the
 * turn's calls already used `maxTokens`, when its prompt alone would take the
 * turn past it, or when the turn's deadline passed; a call in flight when the
 * deadline passes is aborted. Refusals are `LlmCallError('budget_exhausted')`,
 * which callers treat like any failed call: they fall back to the offline path.
 * A call already running is never cut for tokens (its usage is only known at
 * its end), so a turn can overshoot `maxTokens` by at most one call.
 */
import { LlmCallError } from './llm-error.js';
import { estimateMessagesTokens } from './token-estimate.js';
import type { LlmBudgetName, LlmCallOptions, LlmCallResult, LlmGateway, LlmUsage } from './types.js';

/** Prompt plus completion tokens of the turn's calls so far. */
export function tokensUsed(usage: LlmUsage | undefined): number {
  return (usage?.calls ?? []).reduce((total, call) => total + call.promptTokens + call.completionTokens, 0);
}

/** Wraps a gateway so that each call respects the budget of the turn's usage object. */
export function withTurnBudget(gateway: LlmGateway): LlmGateway {
  return {
    get enabled() {
      return gateway.enabled;
    },
    async complete(call: LlmCallOptions): Promise<LlmCallResult> {
      const budget = call?.usage?.budget;
      if (!budget) return gateway.complete(call);
      const refuse = (name: LlmBudgetName, why: string): never => {
        budget.refused(name);
        throw new LlmCallError('budget_exhausted', `LLM call "${call.purpose}" not made: ${why}`);
      };
      if (budget.deadline?.aborted) refuse('max_turn_ms', 'the turn reached its time budget');
      const used = tokensUsed(call.usage);
      if (used >= budget.maxTokens) refuse('max_llm_tokens', `the turn used ${used} of its ${budget.maxTokens} model tokens`);
      const prompt = estimateMessagesTokens(call.messages ?? []);
      if (used + prompt > budget.maxTokens) {
        refuse('max_llm_tokens', `its prompt (about ${prompt} tokens) would take the turn past its ${budget.maxTokens} model tokens (${used} used)`);
      }
      if (!budget.deadline) return gateway.complete(call);
      const signal = call.signal ? AbortSignal.any([call.signal, budget.deadline]) : budget.deadline;
      try {
        return await gateway.complete({ ...call, signal });
      } catch (error) {
        // Cut by the deadline rather than by the caller: a budget stop, so the caller falls back instead of unwinding.
        if (budget.deadline.aborted && !call.signal?.aborted) refuse('max_turn_ms', 'the turn reached its time budget while the call ran');
        throw error;
      }
    },
  };
}
