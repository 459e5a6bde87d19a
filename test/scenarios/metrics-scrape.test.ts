/**
 * What an on-call engineer scrapes: a 400 on `POST /v1/chat` is labelled
 * `route="/v1/chat"` like its successes (an error-rate query sees it), other
 * errors keep their route template too, and a rejected registry edit is
 * counted (`outcome="rejected"`) beside the applied ones.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAgent, jsonReply, type FakeAgent } from '../support/fake-agent.js';
import { sampleRegistry, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

let board: TestSwitchboard;
let weather: FakeAgent;

beforeAll(async () => {
  weather = await startFakeAgent(jsonReply({ body: { status: 'completed', output: { forecast: '晴' }, message: '晴' } }));
  board = await startTestSwitchboard({ registryYaml: sampleRegistry('agents_config.yaml', { 7104: weather.url }) });
});
afterAll(async () => {
  await board?.close();
  await weather?.close();
});

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let tries = 0; ; tries += 1) {
    const value = await read();
    if (done(value) || tries > 200) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('/metrics after a 400 and a rejected reload', () => {
  it('labels every response with its route template and counts reloads by outcome', async () => {
    const scrape = () => fetch(`${board.url}/metrics`).then((response) => response.text());
    expect(await scrape()).toContain('switchboard_registry_reloads_total{outcome="rejected"} 0');

    const bad = await fetch(`${board.url}/v1/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user_id: 'u1' }) });
    expect(bad.status).toBe(400);
    const unparsable = await fetch(`${board.url}/v1/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":' });
    expect(unparsable.status).toBe(400);
    const wrongMethod = await fetch(`${board.url}/v1/chat`);
    expect(wrongMethod.status).toBe(405);
    const notOwner = await fetch(`${board.url}/v1/sessions/s-404/messages`);
    expect(notOwner.status).toBe(400);
    const nowhere = await fetch(`${board.url}/v1/nowhere`);
    expect(nowhere.status).toBe(404);

    // A broken edit: rejected, the last good registry stays.
    const good = readFileSync(board.configPath, 'utf8');
    writeFileSync(board.configPath, `${good}\n  - id: broken\n`);
    const agents = await until(
      () => fetch(`${board.url}/v1/agents`).then((response) => response.json() as Promise<{ last_error: unknown }>),
      (body) => body.last_error !== null,
    );
    expect(agents.last_error).not.toBeNull();
    // A good edit: applied.
    writeFileSync(board.configPath, good.replace('memory_max_history: 5', 'memory_max_history: 6'));
    await until(scrape, (text) => text.includes('switchboard_registry_reloads_total{outcome="applied"} 1'));

    const text = await scrape();
    expect(text).toContain('switchboard_http_requests_total{route="/v1/chat",method="POST",status="400"} 2');
    expect(text).toContain('switchboard_http_requests_total{route="/v1/chat",method="GET",status="405"} 1');
    expect(text).toContain('switchboard_http_requests_total{route="/v1/sessions/:session_id/messages",method="GET",status="400"} 1');
    expect(text).toContain('switchboard_http_requests_total{route="unmatched",method="GET",status="404"} 1');
    expect(text).not.toMatch(/route="\/chat"/);
    expect(text).toContain('switchboard_registry_reloads_total{outcome="rejected"} 1');
    expect(text).toContain('switchboard_registry_reloads_total{outcome="applied"} 1');
  }, 30_000);
});
