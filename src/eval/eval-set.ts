/**
 * The labelled routing set read by `switchboard eval` (docs/api.md#commands): one
 * JSON object per line,
 * `{ "query", "agents": [ids], "session"?: [earlier queries], "inputs"?: { agent_id: { key: value } }, "clarify"?: true }`
 * (`clarify: true`: a clarification whose options hold the expected agent counts as right; a line written by
 * `switchboard review` also carries `review`, its provenance, which is not scored).
 * A line may instead be a dialogue (docs/api.md#commands, dialogue-set.ts).
 * Blank lines and lines starting with `//` are skipped. Every bad line is
 * reported with its number and what is wrong; a set with any bad line is not run.
 */

import { isDialogueLine, readDialogue, type DialogueCase } from './dialogue-set.js';

/** One labelled utterance. */
export interface EvalCase {
  /** 1-based line number in the file. */
  line: number;
  query: string;
  /** Expected agent ids; empty = out of scope (no agent should be routed). */
  agents: string[];
  /** Earlier queries of the same session, oldest first, run before `query`. */
  session: string[];
  /** Expected extracted values per agent (only the keys listed are scored). */
  inputs: Record<string, Record<string, string | number>>;
  /** True when asking "do you mean …?" with the expected agent among the options is a right answer too. */
  clarify?: boolean;
}

/** A problem with one line of the set. */
export interface EvalSetIssue {
  line: number;
  message: string;
}

/** Parse result: either the routing cases and the dialogues, or every problem found. */
export type EvalSetParse = { ok: true; cases: EvalCase[]; dialogues: DialogueCase[] } | { ok: false; issues: EvalSetIssue[] };

/**
 * Parses a JSONL set. `knownAgents`, when given, makes an unknown agent id in
 * `agents` or `inputs` an error (a typo would otherwise read as a miss).
 */
export function parseEvalSet(text: string, knownAgents?: ReadonlySet<string>): EvalSetParse {
  const cases: EvalCase[] = [];
  const dialogues: DialogueCase[] = [];
  const issues: EvalSetIssue[] = [];
  text.split(/\r?\n/u).forEach((raw, index) => {
    const line = index + 1;
    const trimmed = raw.trim();
    if (trimmed.length === 0 || trimmed.startsWith('//')) return;
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch (error) {
      issues.push({ line, message: `not valid JSON: ${(error as Error).message}` });
      return;
    }
    const problems: string[] = [];
    if (isDialogueLine(value)) {
      const dialogue = readDialogue(value as Record<string, unknown>, line, problems, knownAgents);
      if (dialogue && problems.length === 0) dialogues.push(dialogue);
      else issues.push(...problems.map((message) => ({ line, message })));
      return;
    }
    const parsed = readCase(value, line, problems, knownAgents);
    if (parsed && problems.length === 0) cases.push(parsed);
    else issues.push(...problems.map((message) => ({ line, message })));
  });
  if (issues.length === 0 && cases.length === 0 && dialogues.length === 0) issues.push({ line: 0, message: 'the set has no lines' });
  return issues.length > 0 ? { ok: false, issues } : { ok: true, cases, dialogues };
}

function readCase(value: unknown, line: number, problems: string[], knownAgents?: ReadonlySet<string>): EvalCase | undefined {
  if (!isRecord(value)) {
    problems.push('expected a JSON object');
    return undefined;
  }
  for (const key of Object.keys(value)) {
    // `review` is where a line written by `switchboard review` came from: kept for the labeller, not scored.
    if (!['query', 'agents', 'session', 'inputs', 'clarify', 'review'].includes(key)) problems.push(`unknown field "${key}" (expected query, agents, session, inputs, clarify)`);
  }
  const { query, agents, session, inputs, clarify } = value;
  if (clarify !== undefined && typeof clarify !== 'boolean') problems.push('"clarify" must be true or false');
  if (typeof query !== 'string' || query.trim().length === 0) problems.push('"query" must be a non-empty string');
  if (!Array.isArray(agents) || !agents.every((id) => typeof id === 'string')) problems.push('"agents" must be an array of agent ids ([] = out of scope)');
  else if (new Set(agents).size !== agents.length) problems.push('"agents" lists an agent twice');
  const checkId = (id: string, where: string) => {
    if (knownAgents && !knownAgents.has(id)) problems.push(`${where}: unknown agent "${id}"`);
  };
  if (Array.isArray(agents)) for (const id of agents) if (typeof id === 'string') checkId(id, '"agents"');
  if (session !== undefined && (!Array.isArray(session) || !session.every((item) => typeof item === 'string' && item.trim().length > 0))) {
    problems.push('"session" must be an array of non-empty strings (earlier queries)');
  }
  const expectedInputs: Record<string, Record<string, string | number>> = {};
  if (inputs !== undefined) {
    if (!isRecord(inputs)) problems.push('"inputs" must be an object { agent_id: { key: value } }');
    else {
      for (const [agentId, values] of Object.entries(inputs)) {
        checkId(agentId, '"inputs"');
        if (Array.isArray(agents) && !agents.includes(agentId)) problems.push(`"inputs": agent "${agentId}" is not in "agents"`);
        if (!isRecord(values) || !Object.values(values).every((item) => typeof item === 'string' || typeof item === 'number')) {
          problems.push(`"inputs.${agentId}" must map keys to strings or numbers`);
          continue;
        }
        expectedInputs[agentId] = values as Record<string, string | number>;
      }
    }
  }
  if (problems.length > 0) return undefined;
  return {
    line,
    query: (query as string).trim(),
    agents: [...(agents as string[])],
    session: ((session as string[] | undefined) ?? []).map((item) => item.trim()),
    inputs: expectedInputs,
    ...(clarify === true ? { clarify: true } : {}),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
