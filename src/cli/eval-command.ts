/**
 * `switchboard eval FILE [--config F] [--min 0.9] [--json]` (docs/api.md#commands):
 * routing evaluation of a labelled JSONL set against a registry, through the
 * strategies the server would use (offline, or LLM mode when LLM_* is set).
 * Dialogue lines (docs/api.md#commands) run through the real supervisor turn
 * against stub sub-agents that record what they receive (eval/run-dialogues.ts).
 * Exit 0 when exact agent-set accuracy (routing lines) and the share of
 * dialogues that pass whole (dialogue lines) reach `--min` (default 0), 1
 * below it or when the set or registry is bad, 2 on a usage mistake.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { buildLinearBaseline, buildNearestBaseline, type DialogueSummary, formatDialogueReport, formatEvalReport, type NearestBaseline, parseEvalSet, runEval, summariseDialogues, summariseEval } from '../eval/index.js';
import { createEmbeddingsFromEnv } from '../embeddings/index.js';
import { runDialogues } from './run-dialogues.js';
import { createLlmGatewayFromEnv, type LlmGateway } from '../llm/index.js';
import { formatIssue, loadRegistryFile, type RegistrySnapshot } from '../registry/index.js';
import { silentLogger } from '../logger.js';
import { createMetrics } from '../metrics.js';
import { chooseStrategies } from '../switchboard.js';
// Type-only: importing a value from the entry module would re-enter it.
import { fileErrorText, type CliIo } from './cli-io.js';

const EXIT_USAGE = 2;

/** The help text of this command (main adds the environment section). */
export const HELP = `Usage: switchboard eval FILE [--config F] [--min 0.9] [--json]

Routing evaluation. FILE is JSONL, one labelled utterance per line:
  { "query": "...", "agents": ["agent_id", ...],
    "session": ["earlier query", ...],              (optional)
    "inputs": { "agent_id": { "key": "value" } } }  (optional)
"agents": [] marks an out-of-scope query. Session lines first play the earlier
queries in a fresh in-memory session. Uses LLM mode when LLM_BASE_URL and
LLM_MODEL are set, else the offline recogniser.

A line may instead be a dialogue, run through the real supervisor turn against
stub sub-agents that record what they receive (never the real endpoints):
  { "dialogue": [ { "user": "...", "expect": {
      "agents": [ids],                       the agents the turn dealt with
      "inputs": { "agent_id": { "key": "value" } },   values a call received
      "asks": { "agent_id": ["key"] },       keys asked for
      "held": [ids],                         side effects awaiting the yes
      "not_called": [ids] } }, ... ],
    "today": "YYYY-MM-DD",  "name": "..." }  (optional; a turn may give
          "wait_s": seconds passing first, "new_session": true for a new
          session of the same user)
Each expectation is scored; the first failing turn of each dialogue is printed;
--min applies to the share of dialogues that pass whole.

Prints exact agent-set accuracy, top-1 (beside the top-1 of two baselines on
the same examples: nearest example, and a linear character n-gram classifier
trained when the eval starts), out-of-scope kept out, in-scope
"no agent" rate, multi-agent rate, follow-ups, extracted-value accuracy,
pre-selection recall, latency, per-agent precision/recall, confusions and the
misses; in LLM mode also how many lines the model, the word rules, the intent
cache and the offline fallback decided. --json prints the same as one JSON
object. When EMBEDDINGS_BASE_URL and EMBEDDINGS_MODEL are set, the lines are
run a second time with word meaning fused in, and both reports are printed
(JSON: under "embeddings"), with what the embeddings path cost per turn.

  --config F   registry file (default $SWITCHBOARD_CONFIG or agents_config.yaml)
  --min X      exit 1 when accuracy is below X (0..1, default 0)
  --json       machine-readable output
`;

/** Runs `eval`; resolves to the exit code. */
export async function runCommand(args: string[], io: CliIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(HELP);
    return 0;
  }
  let values: { config?: string; min?: string; json?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args,
      options: { config: { type: 'string', short: 'c' }, min: { type: 'string' }, json: { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    }));
  } catch (error) {
    io.stderr(`switchboard eval: ${(error as Error).message}\n\n${HELP}`);
    return EXIT_USAGE;
  }
  if (positionals.length !== 1) {
    io.stderr(`switchboard eval: ${positionals.length === 0 ? 'missing FILE' : 'expected exactly one FILE'}\n\n${HELP}`);
    return EXIT_USAGE;
  }
  const min = values.min === undefined ? 0 : Number(values.min);
  if (values.min !== undefined && (values.min.trim() === '' || !Number.isFinite(min) || min < 0 || min > 1)) {
    io.stderr(`switchboard eval: --min must be a number from 0 to 1 (got "${values.min}")\n`);
    return EXIT_USAGE;
  }
  const file = positionals[0] as string;
  const configFile = values.config ?? io.env.SWITCHBOARD_CONFIG ?? 'agents_config.yaml';
  const fail = (message: string) => {
    if (values.json) io.stdout(`${JSON.stringify({ error: { code: 'EVAL_FAILED', message } })}\n`);
    io.stderr(`switchboard eval: ${message}\n`);
    return 1;
  };

  const loaded = await loadRegistryFile(resolve(io.cwd, configFile), { env: io.env });
  if (!loaded.ok) return fail(`registry ${configFile} is invalid:\n${loaded.issues.map(formatIssue).join('\n')}`);
  const { snapshot } = loaded;

  let text: string;
  try {
    text = await readFile(resolve(io.cwd, file), 'utf8');
  } catch (error) {
    return fail(`cannot read ${file}: ${fileErrorText(error)}`);
  }
  const parsed = parseEvalSet(text, new Set(snapshot.agents.map((card) => card.id)));
  if (!parsed.ok) {
    if (values.json) io.stdout(`${JSON.stringify({ error: { code: 'EVAL_SET_INVALID', message: `${file} has ${parsed.issues.length} bad line(s)`, issues: parsed.issues } })}\n`);
    for (const issue of parsed.issues) io.stderr(`${file}:${issue.line}: ${issue.message}\n`);
    io.stderr(`switchboard eval: ${file} has ${parsed.issues.length} problem${parsed.issues.length === 1 ? '' : 's'}; nothing was run\n`);
    return 1;
  }

  const llm = createLlmGatewayFromEnv(io.env, silentLogger);
  const mode = llm.enabled ? 'llm' : 'offline';
  let pass = true;
  let routing: Record<string, unknown> = {};
  if (parsed.cases.length > 0) {
    const strategies = chooseStrategies(llm.enabled ? llm : undefined, silentLogger, createMetrics());
    // Trained as the registry would train it at load, so no line pays for it.
    const trainingStarted = performance.now();
    strategies.prepare(snapshot);
    const trainingMs = performance.now() - trainingStarted;
    const peers = { baseline: buildNearestBaseline(snapshot), linear: buildLinearBaseline(snapshot) };
    const outcomes = await runEval(parsed.cases, { snapshot, ...strategies, ...peers });
    const report = summariseEval(outcomes);
    // With an embeddings endpoint: the same lines again, word meaning fused in, printed beside the lexical run.
    const withMeaning = await evalWithEmbeddings(io, parsed.cases, snapshot, llm.enabled ? llm : undefined, peers);
    routing = { enabled_agents: snapshot.enabledAgents.length, training_ms: trainingMs, ...report, ...(withMeaning ? { embeddings: withMeaning } : {}) };
    if (!values.json) {
      io.stdout(formatEvalReport(report, { file, mode, agents: snapshot.enabledAgents.length, trainingMs }));
      if (withMeaning) {
        io.stdout(`\n--- with embeddings (${withMeaning.model}; cards embedded in ${withMeaning.cardEmbeddingMs.toFixed(0)} ms; per turn ${withMeaning.callsPerTurn.toFixed(2)} calls, ${withMeaning.endpointMsPerTurn.toFixed(2)} ms at the endpoint, fallbacks ${withMeaning.fallbacks}) ---\n`);
        io.stdout(formatEvalReport(withMeaning.report, { file, mode, agents: snapshot.enabledAgents.length, trainingMs }));
      }
    }
    if (report.accuracy < min) {
      io.stderr(`switchboard eval: accuracy ${(report.accuracy * 100).toFixed(1)}% is below --min ${(min * 100).toFixed(1)}%\n`);
      pass = false;
    }
  }
  let dialogues: DialogueSummary | undefined;
  if (parsed.dialogues.length > 0) {
    const runs = await runDialogues(parsed.dialogues, { configPath: resolve(io.cwd, configFile), env: io.env, ...(llm.enabled ? { llm } : {}) });
    dialogues = summariseDialogues(runs);
    if (!values.json) io.stdout(formatDialogueReport(dialogues, { file, mode }));
    if (dialogues.share < min) {
      io.stderr(`switchboard eval: ${(dialogues.share * 100).toFixed(1)}% of dialogues pass whole, below --min ${(min * 100).toFixed(1)}%\n`);
      pass = false;
    }
  }
  if (values.json) io.stdout(`${JSON.stringify({ file, config: configFile, mode, min, pass, ...routing, ...(dialogues ? { dialogues } : {}) })}\n`);
  return pass ? 0 : 1;
}

/** The eval again with the embeddings endpoint of the environment, when there is one; undefined otherwise. */
async function evalWithEmbeddings(
  io: CliIo,
  cases: Parameters<typeof runEval>[0],
  snapshot: RegistrySnapshot,
  llm: LlmGateway | undefined,
  peers: { baseline: NearestBaseline; linear: NearestBaseline },
) {
  const embeddings = createEmbeddingsFromEnv(io.env, silentLogger);
  if (!embeddings) return undefined;
  const strategies = chooseStrategies(llm, silentLogger, createMetrics(), embeddings.index);
  strategies.prepare(snapshot);
  const started = performance.now();
  const ready = await embeddings.index.prepare(snapshot);
  const cardEmbeddingMs = performance.now() - started;
  const before = { ...embeddings.client.stats.calls, latency: embeddings.client.stats.latenciesMs.reduce((sum, value) => sum + value, 0) };
  const outcomes = await runEval(cases, { snapshot, ...strategies, ...peers, semantic: embeddings.index });
  const { stats } = embeddings.client;
  const turns = Math.max(1, outcomes.reduce((sum, outcome) => sum + outcome.case.session.length + 1, 0));
  return {
    model: embeddings.client.model,
    cardsEmbedded: ready,
    cardEmbeddingMs,
    callsPerTurn: (stats.calls.ok + stats.calls.error - before.ok - before.error) / turns,
    endpointMsPerTurn: (stats.latenciesMs.reduce((sum, value) => sum + value, 0) - before.latency) / turns,
    fallbacks: stats.fallbacks,
    report: summariseEval(outcomes),
  };
}
