/**
 * Caps on the progress a turn relays to its client, so that a chatty or
 * hostile sub-agent (thousands of `progress` events, or megabytes of them)
 * cannot flood the client, the event store or the replay of a resumed
 * stream. Only `agent_stream` events are ever dropped: lifecycle events
 * (agent_start, agent_done, agent_failed), the answer and `done` always go
 * out, so the agent's result still arrives.
 *
 * Two limits per turn: the number of `agent_stream` events relayed, over all
 * agents; and the bytes (UTF-8) of `agent_stream` content relayed per agent,
 * so one agent cannot use up the others' share with a few huge events. An
 * event that would go past either limit is dropped whole (never cut in half).
 */

/** The limits; the registry has no field for them, so they are process settings (docs/configuration.md). */
export interface StreamCaps {
  /** Most `agent_stream` events one turn relays, over all its agents. */
  maxEventsPerTurn: number;
  /** Most bytes of `agent_stream` content one turn relays per agent. */
  maxBytesPerAgent: number;
}

/** Which cap dropped an event (the `cap` label of the metric). */
export type StreamCapName = 'events_per_turn' | 'agent_stream_bytes';

/** 200 progress events per turn, 64 KiB of progress per agent per turn (docs/configuration.md, "Bounded input and output"). */
export const DEFAULT_STREAM_CAPS: StreamCaps = Object.freeze({ maxEventsPerTurn: 200, maxBytesPerAgent: 64 * 1024 });

/** One turn's counter of relayed progress. */
export interface StreamGovernor {
  /** True when this progress event may go out (it is then counted); false when it is dropped. */
  admit(agentId: string, content: string): boolean;
  /** Events dropped so far, by cap. */
  dropped(): Record<StreamCapName, number>;
}

/** Starts counting for one turn. `onDrop` is told of each dropped event, with whether it is the cap's first drop this turn. */
export function createStreamGovernor(caps: StreamCaps, onDrop?: (cap: StreamCapName, agentId: string, first: boolean) => void): StreamGovernor {
  let relayed = 0;
  const bytesByAgent = new Map<string, number>();
  const dropped: Record<StreamCapName, number> = { events_per_turn: 0, agent_stream_bytes: 0 };
  const drop = (cap: StreamCapName, agentId: string): false => {
    dropped[cap] += 1;
    onDrop?.(cap, agentId, dropped[cap] === 1);
    return false;
  };
  return {
    admit(agentId, content) {
      if (relayed >= caps.maxEventsPerTurn) return drop('events_per_turn', agentId);
      const bytes = Buffer.byteLength(content, 'utf8');
      const used = bytesByAgent.get(agentId) ?? 0;
      if (used + bytes > caps.maxBytesPerAgent) return drop('agent_stream_bytes', agentId);
      relayed += 1;
      bytesByAgent.set(agentId, used + bytes);
      return true;
    },
    dropped: () => ({ ...dropped }),
  };
}
