/**
 * Replay (docs/registry-changes.md): the user messages of recorded turns,
 * read from storage page by page, routed by two registries — the live one
 * and an edited one — through the recogniser the server would use, with no
 * history, no planner and no sub-agent. What changes is counted per agent
 * (turns gained and lost) and listed message by message. Memory stays
 * bounded: one page of turns at a time, the routing of repeated messages
 * remembered in a bounded cache, and only the changed turns kept (their
 * events are read, for the marks, only when they changed: one query a page).
 */
import { LRUCache } from 'lru-cache';
import type { IntentRecognizer, IntentResult } from '../intent/index.js';
import { createLlmUsage } from '../llm/index.js';
import type { RegistrySnapshot } from '../registry/index.js';
import type { RecordedTurn, TurnHistoryReader } from '../store/index.js';
import { readTurnQuery } from '../understanding/index.js';
import { readTurnFacts, type TurnMark } from './turn-facts.js';

/** How a message was routed: to a set of agents, to none, or to a clarification between some. */
export interface Routing {
  kind: 'agents' | 'none' | 'clarify';
  /** The agents (sorted), or the agents offered by a clarification; empty for none. */
  agents: string[];
}

/** Routes one message standalone. */
export type Router = (query: string) => Promise<Routing>;

/** One turn whose routing the edit changes. */
export interface ReplayChange {
  turn_id: string;
  session_id: string;
  at: string;
  /** The message as stored (masked). */
  query: string;
  before: Routing;
  after: Routing;
  /** Clarified, corrected or escalated: where an edit should help. */
  marks: TurnMark[];
}

/** Per agent: turns it gains and loses with the edit. */
export interface AgentMoves {
  agent: string;
  gained: number;
  lost: number;
}

/** What a replay found. */
export interface ReplayResult {
  /** Turns routed (those with a message of their own). */
  turns: number;
  /** Turns skipped: answered from body fields alone (confirm, reject, choose), no text to route. */
  skipped: number;
  unchanged: number;
  /** unchanged / turns (1 when no turn was routed). */
  shareUnchanged: number;
  agents: AgentMoves[];
  /** Before → after pairs with how many turns took each, most first. */
  moves: { before: string; after: string; count: number }[];
  changes: ReplayChange[];
  /** Of the changed turns, how many carry each mark. */
  markedChanges: Partial<Record<TurnMark, number>>;
  /** Pages read from storage. */
  pages: number;
}

/** What a replay reads and compares. */
export interface ReplayOptions {
  history: TurnHistoryReader;
  base: Router;
  next: Router;
  since?: string;
  tenant?: string;
  /** At most this many turns (the newest). */
  limit?: number;
  /** Turns per page (default 500). */
  pageSize?: number;
  /** Distinct messages whose routing is remembered (default 20,000). */
  cacheSize?: number;
}

const REPLAY_MARKS: readonly TurnMark[] = ['clarification', 'correction', 'escalated'];

/** A message that only stands for body fields (`confirm: ...`, `reject: ...`, `choose: ...`): nothing to route. */
const BODY_ONLY = /^(?:confirm|reject|choose): [^\s,;]+(?:, [^\s,;]+)*(?:; (?:confirm|reject|choose): [^\s,;]+(?:, [^\s,;]+)*)*$/u;

/** Whether a stored message has text of its own to route. */
export function isRoutableMessage(query: string): boolean {
  return query.trim() !== '' && !BODY_ONLY.test(query.trim());
}

/** The routing an intent result stands for. */
export function routingOf(intent: IntentResult): Routing {
  const loose = intent as Omit<IntentResult, 'kind'> & { kind: string; clarification?: { options?: unknown[] } };
  const offered = (loose.clarification?.options ?? []).flatMap((option) => {
    const id = (option as { sub_agent_id?: unknown; agentId?: unknown } | null)?.sub_agent_id ?? (option as { agentId?: unknown } | null)?.agentId;
    return typeof id === 'string' ? [id] : [];
  });
  if (loose.kind === 'clarify' || offered.length > 0) {
    return { kind: 'clarify', agents: [...new Set(offered.length > 0 ? offered : intent.intents.map((found) => found.agentId))].sort() };
  }
  if (intent.kind === 'business' && intent.intents.length > 0) return { kind: 'agents', agents: [...new Set(intent.intents.map((found) => found.agentId))].sort() };
  return { kind: 'none', agents: [] };
}

/** How a routing is printed: `[a, b]`, `none`, or `clarify(a | b)`. */
export function describeRouting(routing: Routing): string {
  if (routing.kind === 'none') return 'none';
  if (routing.kind === 'clarify') return `clarify(${routing.agents.join(' | ')})`;
  return `[${routing.agents.join(', ')}]`;
}

/**
 * A router over one registry: the message read as a turn reads it, then the
 * recogniser with no history and no parked tasks. Repeated messages are
 * routed once (the cache is bounded).
 */
export function createRouter(recognizer: IntentRecognizer, snapshot: RegistrySnapshot, options: { now?: Date; cacheSize?: number } = {}): Router {
  const cache = new LRUCache<string, Routing>({ max: options.cacheSize ?? 20_000 });
  const now = options.now ?? new Date();
  return async (query) => {
    const known = cache.get(query);
    if (known) return known;
    const intent = await recognizer.recognize({ ...readTurnQuery(query, snapshot), history: [], snapshot, pendingAgents: [], usage: createLlmUsage(), now });
    const routing = routingOf(intent);
    cache.set(query, routing);
    return routing;
  };
}

const sameRouting = (a: Routing, b: Routing) => a.kind === b.kind && a.agents.length === b.agents.length && a.agents.every((agent, index) => agent === b.agents[index]);

/** Reads the recorded turns page by page and compares their routing under both registries. */
export async function replayTurns(options: ReplayOptions): Promise<ReplayResult> {
  const pageSize = Math.max(1, options.pageSize ?? 500);
  const gained = new Map<string, number>();
  const lost = new Map<string, number>();
  const moves = new Map<string, number>();
  const markedChanges: Partial<Record<TurnMark, number>> = {};
  const changes: ReplayChange[] = [];
  let turns = 0;
  let skipped = 0;
  let pages = 0;
  let read = 0;
  let before: RecordedTurn | undefined;
  for (;;) {
    const room = options.limit === undefined ? pageSize : Math.min(pageSize, options.limit - read);
    if (room <= 0) break;
    const page = await options.history.page({
      limit: room,
      ...(options.since !== undefined ? { since: options.since } : {}),
      ...(options.tenant !== undefined ? { tenant: options.tenant } : {}),
      ...(before ? { before: { started_at: before.started_at, turn_id: before.turn_id } } : {}),
    });
    if (page.length === 0) break;
    pages += 1;
    read += page.length;
    before = page.at(-1);
    const changedHere: ReplayChange[] = [];
    for (const turn of page) {
      if (!isRoutableMessage(turn.query)) {
        skipped += 1;
        continue;
      }
      turns += 1;
      const [was, will] = [await options.base(turn.query), await options.next(turn.query)];
      if (sameRouting(was, will)) continue;
      for (const agent of will.kind === 'agents' ? will.agents : []) if (was.kind !== 'agents' || !was.agents.includes(agent)) gained.set(agent, (gained.get(agent) ?? 0) + 1);
      for (const agent of was.kind === 'agents' ? was.agents : []) if (will.kind !== 'agents' || !will.agents.includes(agent)) lost.set(agent, (lost.get(agent) ?? 0) + 1);
      const pair = `${describeRouting(was)}\u0000${describeRouting(will)}`;
      moves.set(pair, (moves.get(pair) ?? 0) + 1);
      changedHere.push({ turn_id: turn.turn_id, session_id: turn.session_id, at: turn.started_at, query: turn.query, before: was, after: will, marks: [] });
    }
    // The marks come from the events of the page's changed turns, read in one query.
    const events = changedHere.length > 0 ? await options.history.eventsOf(changedHere.map((change) => change.turn_id)) : undefined;
    for (const change of changedHere) {
      change.marks = readTurnFacts(events?.get(change.turn_id) ?? []).marks.filter((mark) => REPLAY_MARKS.includes(mark));
      for (const mark of change.marks) markedChanges[mark] = (markedChanges[mark] ?? 0) + 1;
      changes.push(change);
    }
    if (page.length < room) break;
  }
  const agents = [...new Set([...gained.keys(), ...lost.keys()])]
    .map((agent) => ({ agent, gained: gained.get(agent) ?? 0, lost: lost.get(agent) ?? 0 }))
    .sort((a, b) => b.gained + b.lost - (a.gained + a.lost) || a.agent.localeCompare(b.agent));
  const unchanged = turns - changes.length;
  return {
    turns,
    skipped,
    unchanged,
    shareUnchanged: turns === 0 ? 1 : unchanged / turns,
    agents,
    moves: [...moves.entries()]
      .map(([pair, count]) => {
        const [was, will] = pair.split('\u0000') as [string, string];
        return { before: was, after: will, count };
      })
      .sort((a, b) => b.count - a.count || a.before.localeCompare(b.before)),
    changes,
    markedChanges,
    pages,
  };
}
