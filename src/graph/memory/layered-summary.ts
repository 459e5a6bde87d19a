/**
 * The layered summary of a long session (docs/api.md#model-replies): prompts carry the last `memory_max_history` turns verbatim and
 * this one summary of every older turn.
 *
 * It is updated incrementally: when a turn leaves the verbatim window it is
 * folded in, and nothing older is ever re-read. The extractive part (always
 * kept, the only part offline) holds the services asked about with counts,
 * the last few older requests, the key values known and the open requests.
 * In LLM mode the intent call may also return a prose summary covering the
 * leaving turn (no extra call); it replaces the previous prose. Every part is
 * bounded, so the rendered text stays the same size at turn 10 and turn 1000.
 */
import type { MemoryTurn } from '../../intent/index.js';
import type { PendingTask } from '../../store/index.js';
import { truncateText } from '../../text/index.js';

/** The summary of every turn older than the verbatim window. */
export interface LayeredSummary {
  /** Turns folded in so far. */
  turns: number;
  /** Service (agent id) → turns that asked for it, most recent last. */
  intents: Record<string, number>;
  /** The last older requests (rewritten), oldest first. */
  requests: string[];
  /** Key values known when the last turn was folded. */
  facts: Record<string, string | number>;
  /** Requests still open (parked) when the last turn was folded. */
  open: string[];
  /** Prose summary written by the model in its intent call (LLM mode). */
  text?: string;
}

const MAX_INTENTS = 8;
const MAX_REQUESTS = 3;
const MAX_REQUEST_CHARS = 80;
const MAX_FACTS = 12;
const MAX_OPEN = 3;
/** Longest prose summary kept from the model. */
export const MAX_SUMMARY_TEXT = 600;

/** An empty summary. */
export function emptySummary(): LayeredSummary {
  return { turns: 0, intents: {}, requests: [], facts: {}, open: [] };
}

function clip(text: string, limit: number): string {
  return truncateText(text.replace(/\s+/g, ' ').trim(), limit);
}

/** Folds one turn that leaves the verbatim window into the summary (a new object). */
export function foldTurn(
  summary: LayeredSummary | undefined,
  turn: MemoryTurn,
  now: { facts: Readonly<Record<string, string | number>>; pending: readonly PendingTask[] },
  modelText?: string,
): LayeredSummary {
  const base = summary ?? emptySummary();
  const intents = { ...base.intents };
  for (const agent of new Set(turn.agents)) {
    delete intents[agent];
    intents[agent] = (base.intents[agent] ?? 0) + 1;
  }
  const keptIntents = Object.entries(intents).slice(-MAX_INTENTS);
  const request = clip(turn.rewrittenQuery || turn.query, MAX_REQUEST_CHARS);
  const facts = Object.entries(now.facts).slice(-MAX_FACTS);
  const text = modelText !== undefined && modelText.trim() !== '' ? clip(modelText, MAX_SUMMARY_TEXT) : base.text;
  return {
    turns: base.turns + 1,
    intents: Object.fromEntries(keptIntents),
    requests: [...base.requests, request].filter((item) => item !== '').slice(-MAX_REQUESTS),
    facts: Object.fromEntries(facts),
    open: now.pending.slice(-MAX_OPEN).map((task) => clip(task.description || task.agent_id, MAX_REQUEST_CHARS)),
    ...(text ? { text } : {}),
  };
}

/** The summary as prompt text (empty when nothing was folded yet). `nameOf` turns agent ids into names. */
export function renderSummary(summary: LayeredSummary | undefined, nameOf: (agentId: string) => string = (id) => id): string {
  if (!summary || summary.turns === 0) return '';
  const lines = [`${summary.turns} earlier turn(s).`];
  if (summary.text) lines.push(summary.text);
  const intents = Object.entries(summary.intents).map(([agent, count]) => `${nameOf(agent)}${count > 1 ? ` ×${count}` : ''}`);
  if (intents.length > 0) lines.push(`Services asked for: ${intents.join(', ')}.`);
  const facts = Object.entries(summary.facts).map(([key, value]) => `${key}=${value}`);
  if (facts.length > 0) lines.push(`Values given: ${facts.join(', ')}.`);
  if (summary.open.length > 0) lines.push(`Open requests then: ${summary.open.join(' | ')}.`);
  if (summary.requests.length > 0) lines.push(`Last earlier requests: ${summary.requests.join(' | ')}.`);
  return lines.join('\n');
}
