/**
 * Starts a real Switchboard (registry file in a temp dir, SQLite file, HTTP
 * server on 127.0.0.1) for scenario tests, and a small SSE client for it.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createParser } from 'eventsource-parser';
import type { ResponseState } from '../../src/events/index.js';
import { startServer, type RunningServer } from '../../src/http/index.js';
import type { LlmGateway } from '../../src/llm/types.js';
import { silentLogger, type Logger } from '../../src/logger.js';
import type { TraceContext } from '../../src/trace-context.js';
import { createSwitchboard, type Switchboard, type SwitchboardOptions } from '../../src/switchboard.js';

export interface TestSwitchboard {
  url: string;
  dir: string;
  configPath: string;
  switchboard: Switchboard;
  /** One turn over SSE; resolves with every event once the stream ends. */
  chat(query: string, options?: ChatOptions): Promise<ResponseState[]>;
  close(): Promise<void>;
}

export interface ChatOptions {
  userId?: string;
  sessionId?: string;
  /** Task ids to confirm / reject (docs/api.md#conversation-rules); with them `query` may be ''. */
  confirm?: string[];
  reject?: string[];
  /** The option id of the last clarification to choose; with it `query` may be ''. */
  choose?: string;
  signal?: AbortSignal;
  /** Called for each event as it arrives. */
  onEvent?: (event: ResponseState) => void;
}

/**
 * Reads a sample registry and points each `http://127.0.0.1:<port>/invoke` at
 * the given URLs. The samples mark their booking agents `side_effects: true`;
 * that is switched off unless `keepSideEffects` is set, so tests about routing
 * and execution see their tasks run in the turn that plans them (the
 * confirmation scenarios keep it). `answerCacheTtlS` sets
 * `supervisor.answer_cache_ttl_s` (0: tests that ask an agent with
 * `cache_ttl_s`, such as the sample weather agent, the same question again to
 * watch the turn run switch the answer cache off; an agent without
 * `cache_ttl_s` is never answered from it). The demo's quick circuit breaker
 * on the weather agent (open after 4 failed calls) is left out, so an agent
 * gets the default breaker, unless `keepDemoBreaker` is set.
 */
export function sampleRegistry(
  samplePath: string,
  urlsByPort: Record<number, string>,
  options: { keepSideEffects?: boolean; answerCacheTtlS?: number; keepDemoBreaker?: boolean } = {},
): string {
  let text = readFileSync(samplePath, 'utf8');
  if (!options.keepDemoBreaker) text = text.replace(/^\s+circuit_breaker: \{ min_calls: 4, open_s: 20 \}.*\n/m, '');
  if (!options.keepSideEffects) text = text.replace(/^(\s+)side_effects: true\b/gm, '$1side_effects: false');
  if (options.answerCacheTtlS !== undefined) text = text.replace(/^supervisor:\n/m, `supervisor:\n  answer_cache_ttl_s: ${options.answerCacheTtlS}\n`);
  // The demo registry's ports read `${DEMO_*_PORT:-N}`: the fixtures address the default N.
  text = text.replace(/\$\{DEMO_[A-Z]+_PORT:-(\d+)\}/g, '$1');
  for (const [port, url] of Object.entries(urlsByPort)) text = text.replaceAll(`http://127.0.0.1:${port}/invoke`, url);
  return text;
}

export async function startTestSwitchboard(options: {
  registryYaml: string;
  env?: Record<string, string | undefined>;
  llm?: LlmGateway;
  now?: () => Date;
  heartbeatMs?: number;
  bodyTimeoutMs?: number;
  /** HTML served at `GET /`. */
  chatPage?: string;
  ticketWebhook?: SwitchboardOptions['ticketWebhook'];
  /** Default: silent. */
  logger?: Logger;
  /** The trace context the given logger reads. */
  traceContext?: TraceContext;
  /** Turn, sub-agent and model spans (default: ids only). */
  tracing?: SwitchboardOptions['tracing'];
  /** Caps on relayed sub-agent progress (default: the product's defaults). */
  streamCaps?: SwitchboardOptions['streamCaps'];
  /** `SWITCHBOARD_API_KEYS` entries (default: keys off). */
  apiKeys?: readonly string[];
  /** `SWITCHBOARD_ADMIN_KEYS` entries (default: none). */
  adminKeys?: readonly string[];
  /** HTML served at `GET /console`. */
  consolePage?: string;
  /** Fetching of `a2a_card` Agent Cards (default: the product's). */
  a2aCards?: SwitchboardOptions['a2aCards'];
  /**
   * Keep the database in `data/` under the folder, as the default `sqlite:./data/switchboard.db`
   * does, instead of beside the registry file (where every write wakes the registry's watcher).
   */
  databaseInDataFolder?: boolean;
}): Promise<TestSwitchboard> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-scenario-'));
  const configPath = join(dir, 'agents_config.yaml');
  writeFileSync(configPath, options.registryYaml);
  const databaseDir = options.databaseInDataFolder ? join(dir, 'data') : dir;
  if (options.databaseInDataFolder) mkdirSync(databaseDir);
  const switchboard = await createSwitchboard({
    configPath,
    databaseUrl: `sqlite:${join(databaseDir, 'switchboard.db')}`,
    logger: options.logger ?? silentLogger,
    env: options.env ?? {},
    llm: options.llm,
    now: options.now,
    heartbeatMs: options.heartbeatMs,
    bodyTimeoutMs: options.bodyTimeoutMs,
    chatPage: options.chatPage,
    ticketWebhook: options.ticketWebhook,
    traceContext: options.traceContext,
    tracing: options.tracing,
    streamCaps: options.streamCaps,
    apiKeys: options.apiKeys,
    adminKeys: options.adminKeys,
    consolePage: options.consolePage,
    a2aCards: options.a2aCards,
    watch: true,
  });
  const server: RunningServer = await startServer(switchboard.app, { port: 0, host: '127.0.0.1', streams: switchboard.streams });
  return {
    url: server.url,
    dir,
    configPath,
    switchboard,
    chat: (query, chatOptions = {}) => chatOverSse(server.url, query, chatOptions),
    async close() {
      await server.close();
      await switchboard.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Posts a turn and collects the SSE events. */
export async function chatOverSse(baseUrl: string, query: string, options: ChatOptions = {}): Promise<ResponseState[]> {
  const response = await fetch(`${baseUrl}/v1/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({
      ...(query !== '' || (!options.confirm && !options.reject && !options.choose) ? { query } : {}),
      user_id: options.userId ?? 'u1',
      ...(options.sessionId ? { session_id: options.sessionId } : {}),
      ...(options.confirm ? { confirm: options.confirm } : {}),
      ...(options.reject ? { reject: options.reject } : {}),
      ...(options.choose ? { choose: options.choose } : {}),
    }),
    signal: options.signal,
  });
  if (!response.ok || !response.body) throw new Error(`chat failed: ${response.status} ${await response.text()}`);
  const events: ResponseState[] = [];
  const parser = createParser({
    onEvent(message) {
      const event = JSON.parse(message.data) as ResponseState;
      events.push(event);
      options.onEvent?.(event);
    },
  });
  const decoder = new TextDecoder();
  const reader = response.body.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    parser.feed(decoder.decode(value, { stream: true }));
  }
  return events;
}

/** Events of one stage. */
export function stageEvents(events: readonly ResponseState[], stage: string): ResponseState[] {
  return events.filter((event) => event.metadata.stage === stage);
}

/** The final answer event (stage `final`), or throws. */
export function finalEvent(events: readonly ResponseState[]): ResponseState {
  const final = events.find((event) => event.metadata.stage === 'final');
  if (!final) throw new Error(`no final event in: ${events.map((event) => event.metadata.stage).join(', ')}`);
  return final;
}
