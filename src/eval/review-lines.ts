/**
 * `switchboard review` (docs/registry-changes.md): the recorded turns worth a
 * label — ended out of scope, asked the user to choose (and what they chose),
 * corrected by the user, failed or escalated — as eval lines (the set
 * `switchboard eval` reads). Each line's `agents` is the proposed label: for a
 * clarification the option the user chose (a label the product already has),
 * else what the turn routed to ([] when nothing). `review` says where the line
 * came from and what was routed; `eval` ignores it and `review --apply` reads
 * it. The same message seen in several turns is one line, with its count.
 */
import type { RecordedTurn, TurnHistoryReader } from '../store/index.js';
import { isRoutableMessage } from './replay.js';
import { chosenOption, readTurnFacts, type ClarificationOption, type TurnMark } from './turn-facts.js';

/** Where a review line came from. */
export interface ReviewProvenance {
  /** Why the turn is worth a look. */
  why: TurnMark[];
  /** What the turn routed to (agent ids; [] when nothing). */
  routed: string[];
  outcome?: string;
  turn_id: string;
  session_id: string;
  at: string;
  /** Turns with this same message (the line stands for them all). */
  turns: number;
  clarification?: { options: ClarificationOption[]; chosen?: string };
  /** Where `agents` came from: the option the user chose, or what was routed. */
  proposed: 'chosen' | 'routed';
}

/** One line to label. */
export interface ReviewLine {
  query: string;
  agents: string[];
  review: ReviewProvenance;
}

/** Which turns to read. */
export interface ReviewOptions {
  history: TurnHistoryReader;
  since?: string;
  tenant?: string;
  pageSize?: number;
}

/** What a review found: the lines, newest turn first, and how many turns were read. */
export interface ReviewResult {
  lines: ReviewLine[];
  read: number;
  byMark: Partial<Record<TurnMark, number>>;
}

async function lineFor(turn: RecordedTurn, history: TurnHistoryReader): Promise<ReviewLine | undefined> {
  if (!isRoutableMessage(turn.query)) return undefined;
  const facts = readTurnFacts(turn.events ?? []);
  if (facts.marks.length === 0) return undefined;
  let clarification: ReviewProvenance['clarification'];
  let agents = facts.routed;
  let proposed: ReviewProvenance['proposed'] = 'routed';
  if (facts.clarification) {
    const chosen = chosenOption(facts.clarification, await history.nextInSession(turn.turn_id));
    clarification = { options: facts.clarification, ...(chosen ? { chosen: chosen.sub_agent_id } : {}) };
    if (chosen) {
      agents = [chosen.sub_agent_id];
      proposed = 'chosen';
    }
  }
  return {
    query: turn.query,
    agents: [...agents],
    review: {
      why: facts.marks,
      routed: facts.routed,
      ...(facts.outcome ? { outcome: facts.outcome } : {}),
      turn_id: turn.turn_id,
      session_id: turn.session_id,
      at: turn.started_at,
      turns: 1,
      ...(clarification ? { clarification } : {}),
      proposed,
    },
  };
}

/** Reads the turns page by page and returns the lines to label. */
export async function collectReview(options: ReviewOptions): Promise<ReviewResult> {
  const pageSize = Math.max(1, options.pageSize ?? 500);
  const byQuery = new Map<string, ReviewLine>();
  const byMark: Partial<Record<TurnMark, number>> = {};
  let read = 0;
  let before: RecordedTurn | undefined;
  for (;;) {
    const page = await options.history.page({
      limit: pageSize,
      withEvents: true,
      ...(options.since !== undefined ? { since: options.since } : {}),
      ...(options.tenant !== undefined ? { tenant: options.tenant } : {}),
      ...(before ? { before: { started_at: before.started_at, turn_id: before.turn_id } } : {}),
    });
    read += page.length;
    for (const turn of page) {
      const line = await lineFor(turn, options.history);
      if (!line) continue;
      for (const mark of line.review.why) byMark[mark] = (byMark[mark] ?? 0) + 1;
      const seen = byQuery.get(line.query);
      if (!seen) {
        byQuery.set(line.query, line);
        continue;
      }
      // The newest turn's line stands; older ones add their count and marks (and a choice, when the newest had none).
      seen.review.turns += 1;
      seen.review.why = [...new Set([...seen.review.why, ...line.review.why])];
      if (seen.review.proposed === 'routed' && line.review.proposed === 'chosen') {
        seen.agents = line.agents;
        seen.review.proposed = 'chosen';
        seen.review.clarification = line.review.clarification;
      }
    }
    if (page.length < pageSize) break;
    before = page.at(-1);
  }
  return { lines: [...byQuery.values()], read, byMark };
}
