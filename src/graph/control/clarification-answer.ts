/**
 * The turn after a clarification (contract v4): the body's `choose` names an
 * option by id, or the message names one (its label, its agent's name, its
 * ordinal: "第二个", "the first one", "2"; a bare yes when one option was
 * offered). Anything else is a new request and the clarification is dropped.
 * A clarification older than `pending_ttl_s` is gone, like a parked task.
 */
import { optionNamedIn } from '../../intent/index.js';
import type { RegistrySnapshot } from '../../registry/index.js';
import type { ChosenOption, PendingClarification } from '../state.js';

/** What the turn makes of the last clarification. */
export type ClarificationAnswer = { kind: 'chosen'; chosen: ChosenOption } | { kind: 'unknown_choice' } | { kind: 'none' };

/** Reads the answer to `pending` (undefined: none asked or expired) from `choose` and the message. */
export function readClarificationAnswer(input: {
  pending: PendingClarification | undefined;
  choose: string | null;
  /** The message in its normal form (the turn's reading of it). */
  text: string;
  /** The message is a bare yes. */
  yes: boolean;
  snapshot: Pick<RegistrySnapshot, 'byId'>;
  now: Date;
  ttlSeconds: number;
}): ClarificationAnswer {
  const askedAt = input.pending ? Date.parse(input.pending.asked_at) : Number.NaN;
  const pending = input.pending && Number.isFinite(askedAt) && input.now.getTime() - askedAt <= input.ttlSeconds * 1000 ? input.pending : undefined;
  const live = (agentId: string) => input.snapshot.byId.get(agentId)?.enabled === true;
  if (input.choose !== null) {
    const option = pending?.options.find((candidate) => candidate.option_id === input.choose);
    return option && live(option.sub_agent_id) ? { kind: 'chosen', chosen: { agent_id: option.sub_agent_id, option_id: option.option_id, query: pending!.query } } : { kind: 'unknown_choice' };
  }
  if (!pending) return { kind: 'none' };
  const option = optionNamedIn(input.text, pending, input.snapshot, input.yes);
  return option && live(option.sub_agent_id) ? { kind: 'chosen', chosen: { agent_id: option.sub_agent_id, option_id: option.option_id, query: pending.query } } : { kind: 'none' };
}
