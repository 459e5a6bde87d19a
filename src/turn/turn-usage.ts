/**
 * What one turn cost (contract v4 "Usage"): the model calls with the tokens
 * the endpoint reported (an estimate made when it reported none is not
 * counted: 0 offline and 0 for an endpoint without `usage`; a call never sent
 * is not counted), and the sub-agent
 * calls with their time and failures, by agent. It goes out in
 * `done.metadata.state.usage` (and the complete `final`'s), and the turn's
 * stored record keeps the same figures.
 */
import type { LlmCallRecord, LlmUsage } from '../llm/index.js';
import type { AgentCallRecord } from '../graph/index.js';
import type { AgentUsage, TurnUsage } from '../store/index.js';

export type { AgentUsage, TurnUsage };

/** Prompt and completion tokens of one model call as its endpoint reported them (0 when it reported none). */
export function reportedTokens(call: LlmCallRecord): { prompt: number; completion: number } {
  if (call.tokensEstimated) return { prompt: 0, completion: 0 };
  return { prompt: call.promptTokens, completion: call.completionTokens };
}

/** Sums a turn's model calls and sub-agent calls. */
export function summariseTurnUsage(llm: LlmUsage | undefined, agentCalls: readonly AgentCallRecord[]): TurnUsage {
  const usage: TurnUsage = { model_calls: 0, prompt_tokens: 0, completion_tokens: 0, agent_calls: 0, by_agent: Object.create(null) as Record<string, AgentUsage> };
  for (const call of llm?.calls ?? []) {
    // A call that never left the process (circuit open, offline, refused before sending) is no model call.
    if (call.attempts === 0) continue;
    const tokens = reportedTokens(call);
    usage.model_calls += 1;
    usage.prompt_tokens += tokens.prompt;
    usage.completion_tokens += tokens.completion;
  }
  for (const call of agentCalls) {
    const agent = (usage.by_agent[call.agent_id] ??= { calls: 0, failures: 0, ms: 0 });
    usage.agent_calls += 1;
    agent.calls += 1;
    if (!call.ok) agent.failures += 1;
    agent.ms += Math.max(0, Math.round(call.ms));
  }
  // A plain object again, so it serialises and compares as the JSON it becomes.
  usage.by_agent = { ...usage.by_agent };
  return usage;
}
