/**
 * What a recorded turn did, read from its stored events (the same events the
 * client received): what it routed, how it ended, and the marks replay and
 * review look for — out of scope, a clarification (with its options), a
 * correction, a failure, an escalation. Events are read loosely: a stored
 * event that is not JSON, or lacks a field, only means that fact is absent.
 */
import type { RecordedTurn, StoredEvent } from '../store/index.js';
import { completeFinalOf } from '../events/index.js';

/** One option of a clarification (docs/api.md, "Clarification"). */
export interface ClarificationOption {
  option_id: string;
  sub_agent_id: string;
  label: string;
}

/** Why a turn is worth a look: the marks of `switchboard review`. */
export type TurnMark = 'out_of_scope' | 'clarification' | 'correction' | 'failed' | 'escalated';

/** The facts of one turn. */
export interface TurnFacts {
  /** The agents the turn routed to, best first (empty when none). */
  routed: string[];
  /** The recogniser's kind at `intent_done` (business, simple, escalate, clarify...), when it was sent. */
  kind?: string;
  /** The outcome word of `done` (completed, failed, escalated...), when it was stored. */
  outcome?: string;
  /** The options the turn offered, when it asked the user to choose. */
  clarification?: ClarificationOption[];
  marks: TurnMark[];
}

interface LooseEvent {
  metadata?: { stage?: unknown; state?: Record<string, unknown>; clarification?: unknown };
}

/** Parses the stored events that are JSON objects (others are skipped). */
function parseEvents(events: readonly StoredEvent[]): LooseEvent[] {
  const parsed: LooseEvent[] = [];
  for (const event of events) {
    try {
      const value: unknown = JSON.parse(event.data);
      if (value !== null && typeof value === 'object') parsed.push(value as LooseEvent);
    } catch {
      // Not JSON: nothing to read from it.
    }
  }
  return parsed;
}

const stringsOf = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);

/** The clarification options an event carries (`metadata.clarification.options`), or undefined. */
function optionsOf(event: LooseEvent): ClarificationOption[] | undefined {
  const clarification = event.metadata?.clarification ?? event.metadata?.state?.clarification;
  const options = (clarification as { options?: unknown } | undefined)?.options;
  if (!Array.isArray(options)) return undefined;
  const read = options.flatMap((option) => {
    const { option_id, sub_agent_id, label } = (option ?? {}) as Record<string, unknown>;
    return typeof option_id === 'string' && typeof sub_agent_id === 'string' ? [{ option_id, sub_agent_id, label: typeof label === 'string' ? label : sub_agent_id }] : [];
  });
  return read.length > 0 ? read : undefined;
}

/** Reads the facts of a turn from its events. */
export function readTurnFacts(events: readonly StoredEvent[]): TurnFacts {
  const parsed = parseEvents(events);
  const stage = (event: LooseEvent) => event.metadata?.stage;
  const intentDone = parsed.find((event) => stage(event) === 'intent_done' && event.metadata?.state !== undefined);
  const kind = typeof intentDone?.metadata?.state?.kind === 'string' ? intentDone.metadata.state.kind : undefined;
  const started = [...new Set(parsed.filter((event) => stage(event) === 'agent_start').map((event) => (event as { agent_id?: unknown }).agent_id).filter((id): id is string => typeof id === 'string'))];
  const routed = kind === 'business' ? stringsOf(intentDone?.metadata?.state?.intents) : started;
  const done = [...parsed].reverse().find((event) => stage(event) === 'done');
  const outcome = typeof done?.metadata?.state?.outcome === 'string' ? done.metadata.state.outcome : undefined;
  const final = completeFinalOf(parsed);
  let clarification: ClarificationOption[] | undefined;
  for (const event of parsed) clarification = optionsOf(event) ?? clarification;
  const marks: TurnMark[] = [];
  if (final?.metadata?.state?.kind === 'out_of_scope' || (kind === 'simple' && intentDone?.metadata?.state?.simple_kind === 'out_of_scope')) marks.push('out_of_scope');
  if (clarification) marks.push('clarification');
  if (intentDone?.metadata?.state?.act === 'correction') marks.push('correction');
  if (outcome === 'failed') marks.push('failed');
  if (outcome === 'escalated' || parsed.some((event) => stage(event) === 'escalate')) marks.push('escalated');
  return { routed, ...(kind ? { kind } : {}), ...(outcome ? { outcome } : {}), ...(clarification ? { clarification } : {}), marks };
}

/**
 * The option the user chose in answer to a clarification, read from the
 * session's next turn: its `choose` body field as stored with the message (in
 * the row's metadata, or as the `choose: <id>` text of a body-only turn), or
 * else the one offered agent the next turn routed to. Undefined when the next
 * turn chose nothing (a new request drops the clarification).
 */
export function chosenOption(options: readonly ClarificationOption[], next: RecordedTurn | undefined): ClarificationOption | undefined {
  if (!next) return undefined;
  // A body-only turn stores its fields as its text ("choose: opt_2"); a request may keep them in the row's metadata.
  const choose = next.query_metadata.choose ?? /(?:^|; )choose: ([^\s,;]+)/u.exec(next.query)?.[1];
  if (typeof choose === 'string') {
    const named = options.find((option) => option.option_id === choose);
    if (named) return named;
  }
  const routed = readTurnFacts(next.events ?? []).routed;
  const offered = options.filter((option) => routed.includes(option.sub_agent_id));
  return offered.length === 1 ? offered[0] : undefined;
}
