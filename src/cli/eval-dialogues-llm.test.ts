/**
 * The sample dialogues in LLM mode: `switchboard eval` with LLM_BASE_URL set,
 * against the strict fake OpenAI server serving a scripted model. The model
 * reads the user message of each intent request and answers with the agents
 * the dialogue expects and, as inputs, only the expected values the message
 * itself contains — plus one value it makes up for every other key of those
 * agents ("Z9999", "2099-01-01", ...), which the supervisor must never send
 * (docs/api.md#conversation-rules, "Never a wrong value": the model's plan is not evidence).
 * Judging calls say sufficient; answer calls get a short text.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { summariseDialogues } from '../eval/dialogue-report.js';
import { parseEvalSet } from '../eval/eval-set.js';
import { runDialogues } from './run-dialogues.js';
import { createLlmGatewayFromEnv } from '../llm/index.js';
import { silentLogger } from '../logger.js';
import { loadRegistryText } from '../registry/load-registry.js';
import { startFakeOpenAI, type RecordedRequest, type ScriptedReplySpec } from '../../test/support/fake-openai.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Floors in LLM mode: the share of dialogues that pass whole with the scripted model. */
const LLM_FLOORS: [set: string, config: string, min: number][] = [
  ['examples/travel/dialogues.jsonl', 'agents_config.yaml', 0.94],
  ['examples/ecommerce/dialogues.jsonl', 'examples/ecommerce/agents_config.yaml', 0.9],
];

interface Turn {
  user: string;
  expect: { agents?: string[]; inputs?: Record<string, Record<string, string>>; asks?: Record<string, string[]>; held?: string[] };
}

/** A made-up value of the right kind for a key the user never gave. */
function inventedValue(extract: { type: string; values?: readonly string[] }): string {
  if (extract.type === 'date') return '2099-01-01';
  if (extract.type === 'enum') return extract.values?.at(-1) ?? 'Z9999';
  if (extract.type === 'email') return 'made-up@example.com';
  return 'Z9999';
}

function scriptedModel(setPath: string, configPath: string) {
  const dialogues: Turn[][] = readFileSync(`${ROOT}${setPath}`, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => (JSON.parse(line) as { dialogue: Turn[] }).dialogue);
  /** The turn a message belongs to: among turns with this text, the one whose earlier turns the conversation shows most of. */
  const turnOf = (query: string, conversation: string): Turn | undefined => {
    let best: { turn: Turn; score: number } | undefined;
    for (const dialogue of dialogues) {
      dialogue.forEach((turn, index) => {
        if (turn.user !== query) return;
        const earlier = dialogue.slice(0, index);
        const score = earlier.filter((previous) => conversation.includes(previous.user)).length - (conversation === '' ? earlier.length : 0);
        // On a tie, the turn that names agents: a model reads "上海" after a weather question as its answer.
        const weight = score * 10 + Math.min(9, Object.keys(turn.expect.inputs ?? {}).length + (turn.expect.agents?.length ?? 0));
        if (!best || weight > best.score) best = { turn, score: weight };
      });
    }
    return best?.turn;
  };
  const loaded = loadRegistryText(readFileSync(`${ROOT}${configPath}`, 'utf8'), configPath, { env: {} });
  if (!loaded.ok) throw new Error('sample registry does not load');
  const snapshot = loaded.snapshot;
  return (request: RecordedRequest): ScriptedReplySpec => {
    const schema = request.response_format?.json_schema?.name ?? '';
    const prompt = request.messages.map((message) => message.content).join('\n');
    if (schema === 'verify' || /"sufficient"/.test(prompt.slice(0, 400))) return { content: { sufficient: true, retry: [], reason: 'ok' } };
    if (schema !== 'intent_and_plan' && !/DATA:user_message/.test(prompt)) return { content: '好的，已为您处理。' };
    const query = /DATA:user_message\S*\n([^]*?)\n\S*END:user_message/.exec(prompt)?.[1]?.trim() ?? '';
    const conversation = /DATA:conversation\S*\n([^]*?)\n\S*END:conversation/.exec(prompt)?.[1] ?? '';
    const turn = turnOf(query, conversation);
    const expected = turn?.expect ?? {};
    const agents = [...new Set([...(expected.agents ?? []), ...(expected.held ?? []), ...Object.keys(expected.inputs ?? {}), ...Object.keys(expected.asks ?? {})])];
    if (agents.length === 0) {
      return { content: { kind: 'simple', simple_kind: 'out_of_scope', intent: [], confidence: 'high', rewritten_query: query, user_friendly_message: '-', answer: '抱歉，这超出了我的服务范围。' } };
    }
    const subTasks = agents.map((agent, index) => {
      const card = snapshot.byId.get(agent);
      const inputs: Record<string, string> = {};
      for (const spec of card?.requiredKeys ?? []) {
        const said = expected.inputs?.[agent]?.[spec.key];
        inputs[spec.key] = said !== undefined && query.includes(String(said)) ? String(said) : inventedValue(spec.extract as { type: string; values?: readonly string[] });
      }
      return { task_id: `task_${index + 1}`, description: query, assigned_agent: agent, inputs, dependencies: [] };
    });
    return {
      content: { kind: 'business', intent: agents, confidence: 'high', reason: 'scripted', rewritten_query: query, user_friendly_message: '好的', task_plan: { task_type: 'parallel', sub_tasks: subTasks, reasoning: '-' } },
    };
  };
}

/** The values the scripted model makes up that no dialogue ever says. */
const INVENTED = new Set(['Z9999', '2099-01-01', 'made-up@example.com']);

describe('switchboard eval dialogues in LLM mode (scripted model on the strict fake OpenAI server)', () => {
  it.each(LLM_FLOORS)('%s meets its LLM-mode floor, and no made-up value ever reaches a sub-agent', async (set, config, min) => {
    const model = await startFakeOpenAI();
    model.answerAll(scriptedModel(set, config));
    const llm = createLlmGatewayFromEnv({ LLM_BASE_URL: model.baseUrl, LLM_MODEL: 'fake', LLM_API_KEY: 'k' }, silentLogger);
    try {
      const parsed = parseEvalSet(readFileSync(`${ROOT}${set}`, 'utf8'));
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
      const runs = await runDialogues(parsed.dialogues, { configPath: `${ROOT}${config}`, env: {}, llm });
      const summary = summariseDialogues(runs);
      console.log(`${set} (llm): ${summary.passed}/${summary.dialogues} dialogues pass whole; ${summary.passedChecks}/${summary.checks} expectations`);
      for (const failure of summary.failures) console.log(`  line ${failure.line} turn ${failure.turn} "${failure.user}": ${JSON.stringify(failure.failed.map(({ kind, agent, expected, actual }) => ({ kind, agent, expected, actual })))}`);
      expect(summary.share).toBeGreaterThanOrEqual(min);
      const sent = runs.flatMap((run) => run.turns.flatMap((turn) => turn.calls.flatMap((call) => Object.values(call.inputs).map((value) => ({ line: run.case.line, agent: call.agentId, value })))));
      expect(sent.length).toBeGreaterThan(0);
      expect(sent.filter((entry) => INVENTED.has(String(entry.value)))).toEqual([]);
      expect(model.requests.length).toBeGreaterThan(summary.dialogues);
      expect(model.errors).toEqual([]);
    } finally {
      if ('close' in llm && typeof llm.close === 'function') llm.close();
      await model.close();
    }
  }, 180_000);
});
