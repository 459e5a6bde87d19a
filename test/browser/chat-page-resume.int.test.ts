/**
 * The chat page picks a dropped stream up again in a real headless Chromium:
 * a TCP relay between the browser and the server cuts the chat connection
 * once, in the middle of the turn (after the sub-agent started, before its
 * answer). The page asks again with the same idempotency-key and the last
 * event id it saw; the server sends only what followed. The turn is shown
 * once: no step twice, one agent row, the answer once; the sub-agent ran once.
 */
import { readFileSync } from 'node:fs';
import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { type BrowserContext } from 'playwright-core';
import { launchHeadlessChromium, type HeadlessChromium } from '../support/headless-chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSwitchboard, type DemoSwitchboard } from '../support/demo-switchboard.js';
import { sseReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';

const CHAT_PAGE = readFileSync(new URL('../../public/chat.html', import.meta.url), 'utf8');
const ANSWER = '北京明天晴，最高 18°C，最低 6°C。';

/** A TCP relay that cuts the first connection whose response carries `cutAfter`, right after forwarding it. */
interface CuttingRelay {
  url: string;
  /** The raw request heads that went through, in order. */
  requests: string[];
  cuts: number;
  close(): Promise<void>;
}

async function startCuttingRelay(target: URL, cutAfter: string): Promise<CuttingRelay> {
  const sockets = new Set<Socket>();
  const relay: CuttingRelay = { url: '', requests: [], cuts: 0, close: async () => {} };
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
    sockets.add(client).add(upstream);
    let seen = '';
    client.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1');
      if (/^(GET|POST|DELETE) /.test(text)) relay.requests.push(text.slice(0, text.indexOf('\r\n\r\n')));
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      seen = relay.cuts > 0 ? '' : (seen + chunk.toString('utf8')).slice(-4096);
      if (relay.cuts === 0 && seen.includes(cutAfter)) {
        // The chunk reaches the browser, then the connection is gone mid-body (no terminating chunk).
        relay.cuts += 1;
        client.end(chunk);
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    const end = () => {
      if (!client.writableEnded) client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  relay.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  relay.close = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return relay;
}

describe('chat page when the connection drops mid-turn', () => {
  let running: DemoSwitchboard;
  let weather: FakeAgent;
  let relay: CuttingRelay;
  let context: BrowserContext;
  let browser: HeadlessChromium | undefined;

  beforeAll(async () => {
    weather = await startFakeAgent(
      sseReply({
        progress: ['正在查询北京的天气…', '已取得预报'],
        intervalMs: 700,
        result: { status: 'completed', message: ANSWER, output: { city: '北京', forecast: [{ date: '2026-11-28', condition: '晴', high: 18, low: 6 }] } },
      }),
    );
    running = await startDemoSwitchboard({ chatPage: CHAT_PAGE, replace: { weather: weather.url } });
    relay = await startCuttingRelay(new URL(running.board.url), '"stage":"agent_start"');
    browser = await launchHeadlessChromium();
    context = browser.context;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await relay?.close();
    await running?.close();
    await weather?.close();
  });

  it('resumes from the last event id: every step once, the answer once, the sub-agent called once', async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 1000, height: 800 });
    await page.goto(`${relay.url}/`);
    await page.fill('#query', '北京明天天气怎么样');
    await page.click('#send');
    const final = page.locator('.turn .final[data-streaming="false"]');
    await final.waitFor({ timeout: 30_000 });
    await page.locator('.turn[data-outcome]').waitFor({ timeout: 10_000 });

    expect(relay.cuts).toBe(1);
    const chats = relay.requests.filter((head) => head.startsWith('POST /v1/chat'));
    expect(chats).toHaveLength(2);
    expect(chats[0]).not.toMatch(/last-event-id/i);
    const resumedFrom = /last-event-id: (turn_[0-9a-f]{32}):(\d+)/i.exec(chats[1]!);
    expect(resumedFrom, chats[1]).not.toBeNull();
    expect(/idempotency-key: (\S+)/i.exec(chats[1]!)?.[1]).toBe(/idempotency-key: (\S+)/i.exec(chats[0]!)?.[1]);

    expect(await page.locator('.turn').count()).toBe(1);
    expect(await page.locator('.turn').getAttribute('data-outcome')).toBe('completed');
    expect(await page.locator('.turn .final').count()).toBe(1);
    const answer = (await final.textContent()) ?? '';
    expect(answer.split('18°C').length - 1, answer).toBe(1);
    const steps = await page.locator('.turn .step').evaluateAll((nodes) => nodes.map((node) => `${(node as HTMLElement).dataset.stage}|${node.textContent}`));
    expect(steps.length).toBeGreaterThan(1);
    expect(new Set(steps).size).toBe(steps.length);
    expect(await page.locator('.turn .agent').count()).toBe(1);
    expect(await page.locator('.turn .agent[data-agent="weather_agent"][data-status="done"]').count()).toBe(1);
    expect(await page.locator('#banner.shown').count()).toBe(0);
    expect(weather.calls).toHaveLength(1);
    expect(weather.calls[0]!.aborted).toBe(false);
    await page.close();
  }, 60_000);
});
