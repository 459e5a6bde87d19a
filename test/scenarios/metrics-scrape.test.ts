/**
 * What an on-call engineer scrapes: a 400 on `POST /v1/chat` is labelled
 * `route="/v1/chat"` like its successes (an error-rate query sees it), other
 * errors keep their route template too, and a rejected registry edit is
 * counted (`outcome="rejected"`) beside the applied ones. An applied edit the
 * registry lint warns about shows its warnings in `GET /v1/agents`.
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

describe('/metrics after a 400 and a rejected reload; GET /v1/agents after a reload the lint warns about', () => {
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
    // A good edit that the registry lint warns about (docs/onboard-an-agent.md's card beside the demo's hotel agent): applied.
    const guide = readFileSync('docs/onboard-an-agent.md', 'utf8');
    const entry = guide.slice(guide.indexOf('  - id: my_hotel_agent'), guide.indexOf('```', guide.indexOf('  - id: my_hotel_agent')));
    writeFileSync(board.configPath, `${good.trimEnd()}\n${entry}`);
    await until(scrape, (text) => text.includes('switchboard_registry_reloads_total{outcome="applied"} 1'));
    const live = (await fetch(`${board.url}/v1/agents`).then((response) => response.json())) as { last_error: unknown; warnings: { pointer: string; message: string }[] };
    expect(live.last_error).toBeNull();
    expect(live.warnings.map((warning) => warning.message)).toContainEqual(expect.stringMatching(/^agent "my_hotel_agent" overlaps "hotel_agent" \(\/agents\/0\): shared keywords "酒店", "hotel"; colliding examples "帮我订北京的酒店"/));
    expect(live.warnings.map((warning) => warning.message)).toContainEqual(expect.stringContaining('agent "my_hotel_agent" has examples that read like an action with side effects'));

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
