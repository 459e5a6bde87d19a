/**
 * Runs dialogue lines (docs/api.md#commands) through the real supervisor turn
 * (so it sits with the commands, above the assembly it starts; the lines and
 * their scoring are eval's): a
 * Switchboard on a copy of the registry whose every endpoint points at a stub
 * that records what it receives (stub-agents.ts; never the real endpoints),
 * SQLite in a temporary directory, the strategies the server would choose
 * (offline, or LLM mode with the given model gateway). Each dialogue has its
 * own user and session and its own clock (its `today`, advanced by `wait_s`).
 * Caches are switched off in the copy, so every expectation sees the call
 * the turn makes, whatever ran before it.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { completeFinalOf, doneOf, outcomeOf, stageRow, type ResponseState } from '../events/index.js';
import type { LlmGateway } from '../llm/index.js';
import { silentLogger } from '../logger.js';
import { createSwitchboard } from '../switchboard.js';
import { type DialogueCase, type DialogueRun, startStubAgents, type StubAgents, type StubCall, type TurnObservation } from '../eval/index.js';

// What a run observed is written with its scoring (eval/dialogue-report.ts).
export type { DialogueRun, TurnObservation } from '../eval/index.js';

export interface RunDialoguesOptions {
  /** The registry file (YAML). */
  configPath: string;
  env?: Readonly<Record<string, string | undefined>>;
  /** A model gateway for LLM mode; absent or disabled: offline. */
  llm?: LlmGateway;
  /** Today of a dialogue without `today` (default: now). */
  today?: Date;
  /** Called after each dialogue (progress). */
  onDialogue?: (run: DialogueRun, index: number) => void;
}

/** Rewrites a registry document so every agent is a stub and nothing is cached. */
export function stubRegistry(yamlText: string, stubBaseUrl: string): { text: string; outputSchemas: Map<string, unknown> } {
  const document = (parse(yamlText) ?? {}) as Record<string, unknown>;
  const outputSchemas = new Map<string, unknown>();
  const supervisor = (document.supervisor && typeof document.supervisor === 'object' ? document.supervisor : {}) as Record<string, unknown>;
  supervisor.answer_cache_ttl_s = 0;
  delete supervisor.rate_limit;
  if (supervisor.escalation && typeof supervisor.escalation === 'object') delete (supervisor.escalation as Record<string, unknown>).webhook_url;
  document.supervisor = supervisor;
  for (const agent of Array.isArray(document.agents) ? (document.agents as Record<string, unknown>[]) : []) {
    if (!agent || typeof agent !== 'object' || typeof agent.id !== 'string') continue;
    // An agent registered by its Agent Card alone keeps what the file says of it; its card is not fetched
    // (it may not be running), so a missing description is its name, and its examples are the file's.
    if (agent.a2a_card !== undefined && agent.description === undefined) agent.description = agent.name ?? agent.id;
    delete agent.a2a_card;
    delete agent.cache_ttl_s;
    delete agent.stale_if_error_s;
    agent.endpoint = { url: `${stubBaseUrl}${encodeURIComponent(agent.id)}`, protocol: 'http-json', timeout_ms: 5000, retries: 0 };
    if (agent.output_schema) outputSchemas.set(agent.id, agent.output_schema);
  }
  return { text: stringify(document), outputSchemas };
}

/** A Switchboard on stubs, ready to run dialogues one after another. */
export interface DialogueRunner {
  run(dialogue: DialogueCase): Promise<DialogueRun>;
  close(): Promise<void>;
}

/** Starts the stubs and a Switchboard on the rewritten registry. */
export async function openDialogueRunner(options: Omit<RunDialoguesOptions, 'onDialogue'>): Promise<DialogueRunner> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-dialogues-'));
  let outputSchemas = new Map<string, unknown>();
  let stubs: StubAgents | undefined;
  let switchboard: Awaited<ReturnType<typeof createSwitchboard>> | undefined;
  let clock = 0;
  const close = async () => {
    await switchboard?.close().catch(() => {});
    await stubs?.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    stubs = await startStubAgents((agentId) => outputSchemas.get(agentId));
    const rewritten = stubRegistry(readFileSync(options.configPath, 'utf8'), stubs.baseUrl);
    outputSchemas = rewritten.outputSchemas;
    const configPath = join(dir, 'agents_config.yaml');
    writeFileSync(configPath, rewritten.text);
    switchboard = await createSwitchboard({
      configPath,
      databaseUrl: `sqlite:${join(dir, 'dialogues.db')}`,
      logger: silentLogger,
      env: { ...(options.env ?? {}), SWITCHBOARD_DATA_KEY: 'dialogue-eval-data-key-0123456789abcdef' },
      ...(options.llm ? { llm: options.llm } : {}),
      watch: false,
      now: () => new Date(clock),
    });
  } catch (error) {
    await close();
    throw error;
  }
  const board = switchboard;
  const recorder = stubs;
  return {
    async run(dialogue) {
      clock = startOfDialogue(dialogue, options.today);
      const run = randomUUID().slice(0, 8);
      let sessionId = `dlg-${dialogue.line}-${run}`;
      const userId = `dlg-user-${dialogue.line}-${run}`;
      const turns: TurnObservation[] = [];
      for (const [index, turn] of dialogue.turns.entries()) {
        clock += turn.waitS * 1000;
        if (turn.newSession) sessionId = `dlg-${dialogue.line}-${run}-${index}`;
        const before = recorder.calls.length;
        const events = await runTurn(board, turn.user, userId, sessionId);
        const calls = recorder.calls.slice(before).filter((call) => call.sessionId === sessionId);
        turns.push(observe(turn.user, events, calls));
      }
      return { case: dialogue, turns };
    },
    close,
  };
}

/** Runs every dialogue in order and returns what each turn did. */
export async function runDialogues(dialogues: readonly DialogueCase[], options: RunDialoguesOptions): Promise<DialogueRun[]> {
  const runner = await openDialogueRunner(options);
  try {
    const runs: DialogueRun[] = [];
    for (const [index, dialogue] of dialogues.entries()) {
      const run = await runner.run(dialogue);
      runs.push(run);
      options.onDialogue?.(run, index);
    }
    return runs;
  } finally {
    await runner.close();
  }
}

function startOfDialogue(dialogue: DialogueCase, today: Date | undefined): number {
  if (dialogue.today) {
    const [year, month, day] = dialogue.today.split('-').map(Number) as [number, number, number];
    return new Date(year, month - 1, day, 10, 0, 0).getTime();
  }
  return (today ?? new Date()).getTime();
}

async function runTurn(switchboard: Awaited<ReturnType<typeof createSwitchboard>>, query: string, userId: string, sessionId: string): Promise<ResponseState[]> {
  const events: ResponseState[] = [];
  const started = await switchboard.turns.start(
    { query, userId, sessionId, traceId: randomUUID().replaceAll('-', '') },
    { signal: new AbortController().signal, onEvent: (event) => events.push(event) },
  );
  const result = await started.done;
  return result.events.length >= events.length ? result.events : events;
}

/** What a turn did, read from its events and the calls the stubs received. */
export function observe(user: string, events: readonly ResponseState[], calls: StubCall[]): TurnObservation {
  const final = completeFinalOf(events);
  const asks: Record<string, string[]> = {};
  for (const info of final?.metadata.semantic_info ?? []) {
    asks[info.sub_agent_id] = [...new Set([...(asks[info.sub_agent_id] ?? []), ...info.keys])];
  }
  const held = [...new Set((final?.metadata.confirmation ?? []).map((request) => request.sub_agent_id))];
  const agents = new Set<string>([...Object.keys(asks), ...held, ...calls.map((call) => call.agentId)]);
  const tasks = final?.metadata.state?.tasks;
  if (Array.isArray(tasks)) for (const task of tasks) if (task && typeof (task as { agent?: unknown }).agent === 'string') agents.add((task as { agent: string }).agent);
  for (const event of events) {
    if (stageRow(event.metadata.stage)?.section?.name === 'agent' && !['supervisor', 'summarize'].includes(event.agent_id)) agents.add(event.agent_id);
  }
  const outcome = outcomeOf(doneOf(events));
  return {
    user,
    agents: [...agents].sort(),
    calls,
    asks,
    held: held.sort(),
    confirmations: (final?.metadata.confirmation ?? []).map((request) => ({ agentId: request.sub_agent_id, inputs: { ...request.inputs } })),
    answer: final?.content ?? '',
    ...(outcome !== undefined ? { outcome } : {}),
    ...(final?.metadata.clarification ? { offered: final.metadata.clarification.options.map((option) => option.sub_agent_id) } : {}),
  };
}
