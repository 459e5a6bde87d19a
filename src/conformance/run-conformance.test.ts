import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoAgents, type DemoAgents } from '../../demo/agents.js';
import { loadRegistryText } from '../registry/index.js';
import type { AgentCard } from '../registry/types.js';
import { hangReply, jsonReply, sseReply, startFakeAgent, statusReply, type FakeAgent, type FakeReply } from '../../test/support/fake-agent.js';
import { runConformance } from './run-conformance.js';
import { targetFromCard, targetFromUrl } from './resolve-target.js';
import { formatReport } from './format-report.js';
import type { ConformanceReport } from './types.js';

const ROOT_CONFIG = new URL('../../agents_config.yaml', import.meta.url);

function outcome(report: ConformanceReport, id: string) {
  return report.checks.find((check) => check.id === id)?.outcome;
}
function failedMust(report: ConformanceReport): string[] {
  return report.checks.filter((check) => check.level === 'MUST' && check.outcome === 'fail').map((check) => check.id);
}

describe('check-agent against the demo agents', () => {
  let agents: DemoAgents;
  let cards: Map<string, AgentCard>;
  beforeAll(async () => {
    agents = await startDemoAgents({ ports: { hotel: 0, limo: 0, flight: 0, weather: 0 }, hotelToken: 'demo-token' });
    const loaded = loadRegistryText(readFileSync(ROOT_CONFIG, 'utf8'), 'agents_config.yaml', { env: {} });
    if (!loaded.ok) throw new Error(loaded.issues[0]?.message);
    cards = new Map(loaded.snapshot.agents.map((card) => [card.id, card]));
  });
  afterAll(() => agents.close());

  it.each(['hotel', 'limo', 'flight', 'weather'] as const)('%s agent passes every MUST check with its card', async (name) => {
    const card = cards.get(agents.agentIds[name])!;
    const moved: AgentCard = { ...card, endpoint: { ...card.endpoint, url: agents.urls[name] } };
    // No --inputs: pattern keys (pickup time, origin, destination) are sampled from the card's examples.
    const report = await runConformance(targetFromCard(moved));
    expect(failedMust(report), formatReport(report)).toEqual([]);
    expect(report.passed).toBe(true);
    // The sample inputs make it complete, so its output really met output_schema.
    expect(outcome(report, 'output_schema'), formatReport(report)).toBe('pass');
    expect(report.target.protocol).toBe(name === 'weather' ? 'http-sse' : 'http-json');
    if (name === 'weather') expect(outcome(report, 'sse_single_result')).toBe('pass');
    expect(report.checks.filter((check) => check.outcome === 'fail'), formatReport(report)).toEqual([]);
  });

  it('detects the protocol of a bare URL and sees input_required with missing_keys', async () => {
    const report = await runConformance(targetFromUrl(agents.urls.weather));
    expect(report.target.protocol).toBe('http-sse');
    expect(outcome(report, 'input_required_missing_keys')).toBe('pass');
    expect(report.passed).toBe(true);
  });
});

describe('check-agent against broken agents', () => {
  const started: FakeAgent[] = [];
  afterAll(() => Promise.all(started.map((agent) => agent.close())));
  async function fake(reply: (body: unknown, index: number) => FakeReply): Promise<FakeAgent> {
    const agent = await startFakeAgent(reply);
    started.push(agent);
    return agent;
  }

  it('names the envelope check when the status is not one of the three', async () => {
    const agent = await fake(() => jsonReply({ body: { status: 'done', output: {} } }));
    const report = await runConformance(targetFromUrl(agent.url, { timeoutMs: 2000 }));
    expect(report.passed).toBe(false);
    expect(failedMust(report)).toEqual(expect.arrayContaining(['envelope_shape', 'idempotent_retry', 'still_serving']));
    expect(report.checks.find((check) => check.id === 'envelope_shape')?.detail).toMatch(/status/);
    expect(formatReport(report)).toMatch(/^FAIL {2}MUST {4}envelope_shape/m);
  });

  it('a retry that books again: a SHOULD for a read-only agent, a MUST failure for an agent whose card has side_effects', async () => {
    let bookings = 0;
    const agent = await fake(() => jsonReply({ output: { booking_id: `HB-${(bookings += 1)}` }, message: 'booked' }));
    const readOnly = await runConformance(targetFromUrl(agent.url, { timeoutMs: 2000 }));
    expect(readOnly.checks.find((check) => check.id === 'idempotent_output')).toMatchObject({ level: 'SHOULD', outcome: 'fail' });
    expect(readOnly.passed).toBe(true);
    const loaded = loadRegistryText(readFileSync(ROOT_CONFIG, 'utf8'), 'agents_config.yaml', { env: {} });
    if (!loaded.ok) throw new Error(loaded.issues[0]?.message);
    const hotel = loaded.snapshot.agents.find((card) => card.id === 'hotel_agent')!;
    expect(hotel.sideEffects).toBe(true);
    const booking = await runConformance(targetFromCard({ ...hotel, outputSchema: undefined, validateOutput: undefined, endpoint: { ...hotel.endpoint, url: agent.url, headers: {} } }));
    expect(booking.checks.find((check) => check.id === 'idempotent_output')).toMatchObject({ level: 'MUST', outcome: 'fail' });
    expect(failedMust(booking)).toEqual(['idempotent_output']);
    expect(booking.passed).toBe(false);
    expect(formatReport(booking)).toMatch(/^FAIL {2}MUST {4}idempotent_output .*side_effects/m);
    // The same agent answering the retry with the first booking conforms.
    const steady = await fake(() => jsonReply({ output: { booking_id: 'HB-1' }, message: 'booked' }));
    const fixed = await runConformance(targetFromCard({ ...hotel, outputSchema: undefined, validateOutput: undefined, endpoint: { ...hotel.endpoint, url: steady.url, headers: {} } }));
    expect(fixed.checks.find((check) => check.id === 'idempotent_output')).toMatchObject({ level: 'MUST', outcome: 'pass' });
    expect(fixed.passed).toBe(true);
  });

  it('fails input_required without missing_keys, and SHOULD checks on a server that accepts garbage', async () => {
    const agent = await fake(() => jsonReply({ status: 'input_required', message: 'which city?' }));
    const report = await runConformance(targetFromUrl(agent.url, { timeoutMs: 2000 }));
    expect(failedMust(report)).toEqual(['input_required_missing_keys']);
    expect(outcome(report, 'bad_json_rejected')).toBe('fail');
    expect(outcome(report, 'missing_task_id_rejected')).toBe('fail');
  });

  it('fails SSE framing with two result events', async () => {
    const agent = await fake(() => ({ kind: 'raw', contentType: 'text/event-stream', body: 'event: result\ndata: {"status":"completed","output":{}}\n\nevent: result\ndata: {"status":"failed","message":"again"}\n\n' }));
    const report = await runConformance(targetFromUrl(agent.url, { timeoutMs: 2000 }));
    expect(report.target.protocol).toBe('http-sse');
    expect(failedMust(report)).toEqual(['sse_single_result']);
    expect(report.checks.find((check) => check.id === 'sse_single_result')?.detail).toMatch(/2 result events/);
  });

  it('fails an SSE agent whose stream ends without a result', async () => {
    const agent = await fake(() => sseReply({ progress: ['working'], cutBeforeResult: true }));
    const report = await runConformance(targetFromUrl(agent.url, { timeoutMs: 2000 }));
    expect(failedMust(report)).toEqual(expect.arrayContaining(['envelope_shape', 'sse_single_result']));
  });

  it('fails the timeout check on a slow agent and the output_schema check on a bad output', async () => {
    const slow = await fake(() => hangReply());
    const slowReport = await runConformance(targetFromUrl(slow.url, { timeoutMs: 200 }));
    expect(failedMust(slowReport)).toEqual(expect.arrayContaining(['http_status', 'timeout', 'envelope_shape']));
    // No reply arrived, so there is no size to pass.
    expect(outcome(slowReport, 'reply_size')).toBe('skip');

    const wrong = await fake(() => jsonReply({ output: { hotels: 'none' } }));
    const loaded = loadRegistryText(readFileSync(ROOT_CONFIG, 'utf8'), 'agents_config.yaml', { env: {} });
    if (!loaded.ok) throw new Error('root registry invalid');
    const card = loaded.snapshot.byId.get('hotel_agent')!;
    const report = await runConformance(targetFromCard({ ...card, endpoint: { ...card.endpoint, url: wrong.url, headers: {} } }));
    expect(failedMust(report)).toEqual(['output_schema']);
    expect(outcome(report, 'missing_inputs_not_completed')).toBe('fail');
  });

  it('against a refused connection fails http_status, names it unreachable, and passes nothing', async () => {
    const closed = await fake(() => jsonReply({ output: { n: 1 } }));
    const url = closed.url;
    await closed.close();
    const report = await runConformance(targetFromUrl(url, { timeoutMs: 2000 }));
    expect(report.passed).toBe(false);
    expect(failedMust(report)).toEqual(['http_status']);
    expect(report.checks.find((check) => check.id === 'http_status')?.detail).toMatch(/unreachable: ECONNREFUSED/);
    for (const id of ['timeout', 'reply_size', 'envelope_shape', 'idempotent_retry', 'still_serving']) expect(outcome(report, id), id).toBe('skip');
    expect(report.checks.filter((check) => check.outcome === 'pass')).toEqual([]);
  });

  it('fails a retry that changes its answer and a server that dies after bad input', async () => {
    let broken = false;
    const agent = await fake((body, index) => {
      if (typeof body === 'string') broken = true;
      if (broken) return statusReply(500, 'crashed');
      return index === 0 ? jsonReply({ output: { n: 1 } }) : jsonReply({ status: 'failed', message: 'already booked' });
    });
    const report = await runConformance(targetFromUrl(agent.url, { timeoutMs: 2000 }));
    expect(failedMust(report)).toEqual(expect.arrayContaining(['idempotent_retry', 'still_serving']));
  });
});
