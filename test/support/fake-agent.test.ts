import { afterEach, describe, expect, it } from 'vitest';
import { hangReply, jsonReply, rawReply, sseReply, startFakeAgent, statusReply, type FakeAgent } from './fake-agent.js';

const post = (url: string, body: unknown, init: RequestInit = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-probe': 'p1' }, body: JSON.stringify(body), ...init });

describe('startFakeAgent', () => {
  let agent: FakeAgent | undefined;
  afterEach(async () => {
    await agent?.close();
    agent = undefined;
  });

  it('answers JSON and records body and headers', async () => {
    agent = await startFakeAgent(jsonReply({ output: { n: 1 }, message: 'hi' }));
    const response = await post(agent.url, { task_id: 't1' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'completed', output: { n: 1 }, message: 'hi' });
    expect(agent.calls).toHaveLength(1);
    expect(agent.calls[0]!.body).toEqual({ task_id: 't1' });
    expect(agent.calls[0]!.headers['x-probe']).toBe('p1');
    expect(agent.calls[0]!.path).toBe('/invoke');
  });

  it('serves a strict script and reports calls past its end', async () => {
    agent = await startFakeAgent([statusReply(503, 'busy'), rawReply('{nope')]);
    expect((await post(agent.url, {})).status).toBe(503);
    expect(await (await post(agent.url, {})).text()).toBe('{nope');
    agent.assertComplete();
    const extra = await post(agent.url, {});
    expect(extra.status).toBe(500);
    expect(await extra.text()).toContain('no scripted reply for call 3');
    expect(() => agent!.assertComplete()).toThrow(/past the end/);
  });

  it('reports scripted replies left unused', async () => {
    agent = await startFakeAgent([jsonReply(), jsonReply()]);
    await post(agent.url, {});
    expect(() => agent!.assertComplete()).toThrow(/1 scripted replies were never used/);
  });

  it('passes the body and call index to a behaviour function', async () => {
    agent = await startFakeAgent((body, index) => jsonReply({ output: { echo: body, index } }));
    await post(agent.url, { a: 1 });
    const second = await (await post(agent.url, { a: 2 })).json();
    expect(second.output).toEqual({ echo: { a: 2 }, index: 1 });
  });

  it('streams progress events and a result', async () => {
    agent = await startFakeAgent(sseReply({ progress: ['one', 'two'], result: { status: 'completed', output: { x: 1 } } }));
    const response = await post(agent.url, {});
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await response.text();
    expect(text).toBe(
      'event: progress\ndata: {"content":"one"}\n\n' +
        'event: progress\ndata: {"content":"two"}\n\n' +
        'event: result\ndata: {"status":"completed","output":{"x":1}}\n\n',
    );
  });

  it('cuts a stream before the result when told to', async () => {
    agent = await startFakeAgent(sseReply({ progress: ['one'], cutBeforeResult: true }));
    const text = await (await post(agent.url, {})).text();
    expect(text).not.toContain('event: result');
  });

  it('hangs until the client aborts and records the abort', async () => {
    agent = await startFakeAgent(hangReply());
    const controller = new AbortController();
    const pending = post(agent.url, {}, { signal: controller.signal });
    await agent.waitForCalls(1);
    controller.abort();
    await expect(pending).rejects.toThrow();
    await agent.waitForAborts(1);
    expect(agent.calls[0]!.aborted).toBe(true);
    expect(agent.abortedCount).toBe(1);
  });

  it('does not count a completed reply as aborted', async () => {
    agent = await startFakeAgent(jsonReply());
    await (await post(agent.url, {})).text();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(agent.calls[0]!.aborted).toBe(false);
  });
});
