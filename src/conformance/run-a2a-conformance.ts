/**
 * `check-agent` for A2A agents: the checks that decide whether Switchboard can
 * use the agent as a sub-agent, run through the same SDK client and adapter a
 * turn uses (so a pass here means a pass in production):
 *
 * - agent_card (MUST): the Agent Card is fetched and read (v1.0, or v0.3 through legacyCompat);
 * - transport (MUST): the SDK finds a transport it speaks among the card's interfaces;
 * - task_outcome (MUST): a message with sample inputs ends in a state Switchboard maps
 *   (completed, input-required, failed, rejected, canceled), not an error or a stream cut short;
 * - output_schema (MUST, registered agents with one): a completed task's data meets it;
 * - input_required (SHOULD): a message without the required keys is answered input-required,
 *   naming the keys in a data part (`missing_keys`);
 * - streaming (SHOULD): an agent whose card says `capabilities.streaming` completes a streamed call.
 *
 * A failed check also says what was sent, what came back and what was expected
 * (header values never shown), as the http-json / http-sse suite does.
 */
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';
import type { AgentCard as A2aCard } from '@a2a-js/sdk';
import { agentCardUrl, type AgentOutcome, type AgentRequestBody, createAgentClient, outputSchemaProblem } from '../agents/index.js';
import type { AgentCard } from '../registry/index.js';
import { excerpt } from '../../packages/agent-kit/src/conformance/evidence.js';
import type { CheckResult, ConformanceReport, ConformanceTarget } from './types.js';

/** What a failed check shows under its line. */
interface Evidence {
  readonly sent: string;
  readonly received: string;
  readonly expected: string;
}

type Record_ = (id: string, level: CheckResult['level'], outcome: CheckResult['outcome'], detail: string, evidence?: Evidence) => void;

const FINAL_STATES = 'a task that ends completed, input-required, failed, rejected or canceled (a failed task is the agent\'s answer, not a protocol failure)';

const LEGACY = { enabled: true } as const;

/**
 * Whether `url` serves an Agent Card (a quick probe for bare-URL targets). Only a
 * site root or a `.json` url is probed: an endpoint path such as `/invoke` is an
 * http-json / http-sse agent, never sent a stray request.
 */
export async function servesAgentCard(url: string, timeoutMs: number): Promise<boolean> {
  try {
    const path = new URL(url).pathname;
    // A card url names itself; it is checked as A2A even when nothing answers there.
    if (path.endsWith('.json')) return true;
    if (path !== '/' && path !== '') return false;
    const response = await fetch(agentCardUrl(url), { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    if (!response.ok) return false;
    const body = (await response.json()) as { name?: unknown };
    return typeof body?.name === 'string';
  } catch {
    return false;
  }
}

/** Runs the A2A checks against a target. */
export async function runA2aConformance(target: ConformanceTarget): Promise<ConformanceReport> {
  const checks: CheckResult[] = [];
  const record: Record_ = (id, level, outcome, detail, evidence) => checks.push({ id, level, outcome, detail, ...(outcome === 'fail' && evidence ? evidence : {}) });
  const report = (): ConformanceReport => ({
    target: { url: target.url, protocol: 'a2a', ...(target.agentId ? { agent_id: target.agentId } : {}) },
    checks,
    passed: checks.every((check) => check.level !== 'MUST' || check.outcome !== 'fail'),
  });

  let card: A2aCard;
  const cardUrl = agentCardUrl(target.url);
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(target.headers)) headers.set(name, value);
    return fetch(input, { ...init, headers, signal: init?.signal ?? AbortSignal.timeout(target.timeoutMs) });
  };
  try {
    card = await new DefaultAgentCardResolver({ fetchImpl, legacyCompat: LEGACY }).resolve(cardUrl, '');
    const versions = [...new Set(card.supportedInterfaces.map((entry) => `${entry.protocolBinding} ${entry.protocolVersion || '?'}`))].join(', ');
    record('agent_card', 'MUST', 'pass', `"${card.name}" with ${card.skills.length} skill(s); interfaces: ${versions || 'none'}`);
  } catch (error) {
    record('agent_card', 'MUST', 'fail', `the Agent Card could not be read: ${(error as Error).message}`, {
      sent: `GET ${cardUrl}`,
      received: await fetchedAs(fetchImpl, cardUrl),
      expected: 'HTTP 200 with an Agent Card: JSON with name, description, skills and capabilities, and supportedInterfaces (v1.0) or url with protocolVersion (v0.3)',
    });
    return report();
  }
  try {
    const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat: LEGACY }), new RestTransportFactory({ fetchImpl, legacyCompat: LEGACY })] });
    const client = await factory.createFromAgentCard(card);
    record('transport', 'MUST', 'pass', `${client.transport.protocolName} (A2A ${client.protocolVersion})`);
  } catch (error) {
    const offered = (card.supportedInterfaces ?? []).map((entry) => `${entry.protocolBinding} ${entry.protocolVersion || '?'} at ${entry.url}`);
    record('transport', 'MUST', 'fail', (error as Error).message, {
      sent: `GET ${cardUrl}`,
      received: `a card offering ${offered.length > 0 ? offered.join('; ') : 'no interface'}`,
      expected: 'an interface with protocolBinding JSONRPC or HTTP+JSON (A2A 1.0 or 0.3), the bindings the client speaks',
    });
    return report();
  }

  const streaming = card.capabilities?.streaming === true;
  const client = createAgentClient({ retryBaseDelayMs: 1 });
  const agentCard: AgentCard = {
    id: target.agentId ?? 'checked_agent',
    name: card.name,
    description: card.description,
    enabled: true,
    examples: [],
    keywords: [],
    dependsOn: [],
    endpoint: { url: target.url, protocol: 'a2a', timeoutMs: target.timeoutMs, retries: 0, headers: target.headers, allowPrivateAddresses: true },
    requiredKeys: [],
  };
  const body = (inputs: Readonly<Record<string, unknown>>, suffix: string): AgentRequestBody => ({
    task_id: `check_${Date.now()}_${suffix}`,
    message: card.skills[0]?.examples[0] ?? 'conformance check',
    inputs: { ...inputs },
    user_id: 'conformance',
    thread_id: `check_${Date.now()}`,
    trace_id: `check_${Date.now()}`,
    upstream: {},
  });

  const progress: string[] = [];
  const fullBody = body(target.inputs, 'full');
  const sentFull = describeSent(streaming, target.url, fullBody);
  const first = await client.call(agentCard, fullBody, { onProgress: (text) => progress.push(text) });
  if (first.ok) {
    record('task_outcome', 'MUST', 'pass', `the task ended ${first.reply.status}${first.reply.message ? `: "${first.reply.message.slice(0, 80)}"` : ''}`);
  } else {
    record('task_outcome', 'MUST', first.code === 'agent_failed' ? 'pass' : 'fail', describeFailure(first), { sent: sentFull, received: describeOutcome(first), expected: FINAL_STATES });
  }
  checkOutput(first, target, record, sentFull);
  if (streaming) {
    const streamed = first.ok && first.reply.status !== 'failed';
    record('streaming', 'SHOULD', streamed ? 'pass' : 'fail', streamed ? `a streamed call finished (${progress.length} progress update(s))` : 'the card says streaming but the streamed call did not finish', {
      sent: sentFull,
      received: `${describeOutcome(first)}; ${progress.length} progress update(s)`,
      expected: 'a SendStreamingMessage stream that ends with the task in a final state other than failed',
    });
  } else {
    record('streaming', 'SHOULD', 'skip', 'the card does not offer streaming');
  }

  if (target.requiredKeys.length === 0) {
    record('input_required', 'SHOULD', 'skip', 'no required keys to leave out');
  } else {
    const bareBody = body({}, 'bare');
    const bare = await client.call(agentCard, bareBody);
    const evidence = {
      sent: describeSent(false, target.url, bareBody),
      received: describeOutcome(bare),
      expected: `the task in state input-required, with a data part {"missing_keys": [...]} naming ${target.requiredKeys.join(', ')}`,
    };
    if (bare.ok && bare.reply.status === 'input_required') {
      const named = bare.reply.missing_keys ?? [];
      record('input_required', 'SHOULD', named.length > 0 ? 'pass' : 'fail', named.length > 0 ? `asked for ${named.join(', ')}` : 'input-required without the keys named in a data part (missing_keys)', evidence);
    } else {
      record('input_required', 'SHOULD', 'fail', `without ${target.requiredKeys.join(', ')} the task ended ${bare.ok ? bare.reply.status : describeFailure(bare)}`, evidence);
    }
  }
  return report();
}

function checkOutput(outcome: AgentOutcome, target: ConformanceTarget, record: Record_, sent: string): void {
  if (!target.checkOutput) return;
  if (!outcome.ok || outcome.reply.status !== 'completed') {
    record('output_schema', 'MUST', 'skip', 'no completed task to judge');
    return;
  }
  const problem = target.checkOutput(outcome.reply);
  record('output_schema', 'MUST', problem ? 'fail' : 'pass', problem ?? 'the task data meets output_schema', {
    sent,
    received: describeOutcome(outcome),
    expected: 'a completed task whose data parts (merged into one object) meet the card\'s output_schema',
  });
}

/** The message a check sent: the operation, where, its text and its data part (inputs). */
function describeSent(streaming: boolean, url: string, request: AgentRequestBody): string {
  const data = Object.keys(request.inputs).length > 0 ? `, data part ${excerpt(JSON.stringify(request.inputs), 160)}` : ', no data part';
  return `${streaming ? 'SendStreamingMessage' : 'SendMessage'} to ${url}: text "${excerpt(request.message, 80)}"${data}`;
}

/** What came back, as the adapter read it: the task's final state with its text and data, or why there was none. */
function describeOutcome(outcome: AgentOutcome): string {
  if (!outcome.ok) return `no usable task: ${describeFailure(outcome)}`;
  const { reply } = outcome;
  const parts = [
    `the task ended ${reply.status}`,
    ...(reply.message ? [`text "${excerpt(reply.message, 120)}"`] : ['no text']),
    ...(reply.output !== undefined ? [`data ${excerpt(JSON.stringify(reply.output), 160)}`] : ['no data part']),
    ...(reply.missing_keys ? [`missing_keys ${JSON.stringify(reply.missing_keys)}`] : []),
  ];
  return parts.join('; ');
}

/** The card url's raw answer, for a card that could not be read. */
async function fetchedAs(fetchImpl: typeof fetch, url: string): Promise<string> {
  try {
    const response = await fetchImpl(url, { redirect: 'manual' });
    const text = await response.text();
    return `HTTP ${response.status} ${response.headers.get('content-type') ?? '(no content-type)'} ${text.trim() === '' ? '(empty body)' : excerpt(text)}`;
  } catch (error) {
    return `no answer: ${(error as Error).message}`;
  }
}

function describeFailure(outcome: Extract<AgentOutcome, { ok: false }>): string {
  return `${outcome.code}: ${outcome.reason}`;
}
