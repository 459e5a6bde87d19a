import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startA2aPeer, type A2aPeer } from '../../test/support/a2a-peers.js';
import { formatReport } from './format-report.js';
import { runA2aConformance } from './run-a2a-conformance.js';
import type { ConformanceTarget } from './types.js';

const peers: A2aPeer[] = [];
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(peers.splice(0).map((peer) => peer.close()));
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => server.close(done))));
});

const target = (url: string, extra: Partial<ConformanceTarget> = {}): ConformanceTarget => ({
  url,
  protocol: 'a2a',
  headers: { authorization: 'Bearer do-not-print-me' },
  timeoutMs: 5_000,
  requiredKeys: ['city'],
  inputs: { city: 'Beijing' },
  ...extra,
});

describe('check-agent on an A2A agent says what it sent, what came back and what it expected', () => {
  it('passes a well-behaved SDK agent with no evidence lines', async () => {
    const peer = await startA2aPeer();
    peers.push(peer);
    const report = await runA2aConformance(target(peer.url));
    expect(report.passed).toBe(true);
    expect(report.checks.every((check) => check.outcome !== 'fail' && check.sent === undefined)).toBe(true);
  });

  it('an input-required without missing_keys: the message sent, the task it got, the data part it expected', async () => {
    const peer = await startA2aPeer({ nameKeys: false, streaming: false });
    peers.push(peer);
    const report = await runA2aConformance(target(peer.url));
    const check = report.checks.find((entry) => entry.id === 'input_required');
    expect(check).toMatchObject({ outcome: 'fail', level: 'SHOULD' });
    expect(check?.sent).toMatch(/^SendMessage to http:\/\/127\.0\.0\.1:\d+.*: text ".+", no data part$/u);
    expect(check?.received).toBe('the task ended input_required; text "Which city do you mean?"; data {}');
    expect(check?.expected).toBe('the task in state input-required, with a data part {"missing_keys": [...]} naming city');
    const printed = formatReport(report);
    expect(printed).toContain('        sent:     SendMessage to');
    expect(printed).toContain('        received: the task ended input_required');
    expect(printed).not.toContain('do-not-print-me');
  });

  it('data that fails output_schema: the data it got beside what the schema wanted', async () => {
    const peer = await startA2aPeer({ streaming: false });
    peers.push(peer);
    const report = await runA2aConformance(target(peer.url, { checkOutput: (reply) => (reply.output && 'humidity' in reply.output ? undefined : 'output must have required property humidity') }));
    const check = report.checks.find((entry) => entry.id === 'output_schema');
    expect(check).toMatchObject({ outcome: 'fail', level: 'MUST', detail: 'output must have required property humidity' });
    expect(check?.sent).toContain('data part {"city":"Beijing"}');
    expect(check?.received).toMatch(/^the task ended completed; text "Sunny in Beijing, up to 21°C"; data \{.+\}$/u);
    expect(check?.expected).toContain("meet the card's output_schema");
  });

  it('a card url that answers something else: the GET, the status and body it got, the card fields it expected', async () => {
    const server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}'));
    servers.push(server);
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const report = await runA2aConformance(target(url));
    expect(report.passed).toBe(false);
    const check = report.checks.find((entry) => entry.id === 'agent_card');
    expect(check?.sent).toBe(`GET ${url}.well-known/agent-card.json`);
    expect(check?.received).toBe('HTTP 200 application/json {"status":"ok"}');
    expect(check?.expected).toContain('supportedInterfaces');
  });
});
