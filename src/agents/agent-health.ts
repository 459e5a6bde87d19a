/**
 * Passive health of each sub-agent, from the outcomes of real calls (no
 * probing): shown by `GET /v1/agents` next to each card.
 */

export interface AgentHealth {
  /** `unknown` until the first call; `failing` after a failed call, until one succeeds. */
  status: 'unknown' | 'ok' | 'failing';
  consecutive_failures: number;
  last_call_at: string | null;
  last_outcome: string | null;
}

export interface AgentHealthTracker {
  record(agentId: string, outcome: string): void;
  of(agentId: string): AgentHealth;
}

/** Outcomes that count as the agent working (it answered per the protocol). */
const HEALTHY = new Set(['completed', 'input_required', 'aborted']);

export function createAgentHealthTracker(now: () => Date = () => new Date()): AgentHealthTracker {
  const byAgent = new Map<string, AgentHealth>();
  return {
    record(agentId, outcome) {
      const previous = byAgent.get(agentId);
      const healthy = HEALTHY.has(outcome);
      byAgent.set(agentId, {
        status: healthy ? 'ok' : 'failing',
        consecutive_failures: healthy ? 0 : (previous?.consecutive_failures ?? 0) + 1,
        last_call_at: now().toISOString(),
        last_outcome: outcome,
      });
    },
    of(agentId) {
      return { ...(byAgent.get(agentId) ?? { status: 'unknown', consecutive_failures: 0, last_call_at: null, last_outcome: null }) };
    },
  };
}
