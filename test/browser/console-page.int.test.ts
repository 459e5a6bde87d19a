/**
 * The console in a real headless Chromium (Debian's chromium driven by
 * playwright-core): it lists the agents of the registry, shows a rejected
 * reload with its file:line and message, draws a two-intent turn's waterfall
 * with both calls and each value's source, never shows a secret header value
 * or an unmasked phone number, shows a tenant's turns to that tenant's admin
 * key only, is reachable by keyboard, reads in English too, and stays inside a
 * 375 px viewport. With SWITCHBOARD_UPDATE_SCREENSHOTS=1 it rewrites the
 * screenshot the operations guide shows (docs/images/console.png); otherwise
 * the screenshot goes to the temporary directory, so a test run leaves the
 * checkout as it was.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, type Page } from 'playwright-core';
import { launchHeadlessChromium, type HeadlessChromium } from '../support/headless-chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSwitchboard, type DemoSwitchboard } from '../support/demo-switchboard.js';

const CONSOLE_PAGE = readFileSync(new URL('../../public/console.html', import.meta.url), 'utf8');
/** The screenshot docs/operations links, rewritten only when asked to. */
const SCREENSHOT = process.env.SWITCHBOARD_UPDATE_SCREENSHOTS === '1' ? fileURLToPath(new URL('../../docs/images/console.png', import.meta.url)) : join(tmpdir(), `switchboard-console-${process.pid}.png`);
const PHONE = '13912345678';
const SECRET = 'demo-token';

let running: DemoSwitchboard;
let url: string;
let context: BrowserContext;
let browser: HeadlessChromium | undefined;
let turnId: string;
/** The ids of the registry's agents, as GET /v1/agents lists them. */
let agentIds: string[];

async function chat(key: string, query: string, sessionId: string): Promise<string> {
  const response = await fetch(`${url}/v1/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ query, user_id: 'web_console_user', session_id: sessionId }),
  });
  const events = (await response.text())
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as { metadata: { stage: string; state?: { turn_id?: string } } });
  return events.at(-1)!.metadata.state!.turn_id!;
}

beforeAll(async () => {
  running = await startDemoSwitchboard({ apiKeys: ['admin-alpha=alpha', 'front-alpha=alpha', 'admin-beta=beta'], adminKeys: ['admin-alpha', 'admin-beta'], consolePage: CONSOLE_PAGE });
  url = running.board.url;
  turnId = await chat('front-alpha', `帮我订北京的酒店，明天入住，再告诉我北京明天的天气，电话 ${PHONE}`, 'console-browser');
  const listed = (await (await fetch(`${url}/v1/agents`, { headers: { authorization: 'Bearer front-alpha' } })).json()) as { agents: { id: string }[] };
  agentIds = listed.agents.map((agent) => agent.id);
  browser = await launchHeadlessChromium();
  context = browser.context;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await running?.close();
});

async function openConsole(key: string, width = 1280): Promise<Page> {
  const page = await context.newPage();
  await page.setViewportSize({ width, height: 900 });
  await page.goto(`${url}/console?key=${key}`);
  return page;
}

describe('console page', () => {
  it('lists the agents, draws the two-intent turn with both calls and each value\'s source, and never shows a secret or a phone number', async () => {
    const page = await openConsole('admin-alpha');
    await page.locator('#agents tr[data-agent="hotel_agent"]').waitFor();
    expect(await page.locator('#agents tbody tr').evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.agent))).toEqual(agentIds);
    expect(agentIds.length).toBeGreaterThanOrEqual(4);
    expect(page.url()).not.toContain('key=');
    // Keyboard: Tab reaches the turn's row button, Enter opens it.
    await page.locator(`#turn-list tr[data-turn="${turnId}"]`).waitFor();
    let focused = '';
    for (let step = 0; step < 30 && focused !== 'row'; step++) {
      await page.keyboard.press('Tab');
      focused = await page.evaluate(() => (document.activeElement as HTMLElement | null)?.className ?? '');
    }
    expect(focused).toBe('row');
    await page.keyboard.press('Enter');
    await page.locator('.waterfall .lane[data-call]').first().waitFor();
    const calls = await page.locator('.waterfall .lane[data-call]').allTextContents();
    expect(calls.join(' ')).toMatch(/hotel_agent/);
    expect(calls.join(' ')).toMatch(/weather_agent/);
    expect(calls).toHaveLength(2);
    expect(await page.locator('svg.plan rect').count()).toBe(2);
    const source = page.locator('[data-call-inputs] + ul .source').first();
    expect(await source.getAttribute('title')).toMatch(/用户第 \d+ 轮（turn_[0-9a-z]+）.*「北京」/);
    const html = await page.content();
    expect(html).not.toContain(PHONE);
    expect(html).not.toContain(SECRET);
    expect(await page.locator('#turn-body').innerText()).toContain('139');
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    await page.click('#language');
    await expect.poll(() => page.locator('#turns-title').innerText()).toBe('Recent turns');
    expect(await source.getAttribute('title')).toMatch(/user, turn \d+ \(turn_[0-9a-z]+\), chars \d+–\d+ “北京”/);
    await page.close();
  });

  it('shows a tenant\'s turns to its own admin key only; a key that is not an admin key is refused', async () => {
    const beta = await openConsole('admin-beta');
    await beta.locator('#agents tr[data-agent="hotel_agent"]').waitFor();
    await expect.poll(() => beta.locator('#turn-list tbody').innerText()).toMatch(/没有轮次|No turns/);
    expect(await beta.content()).not.toContain(turnId);
    await beta.close();
    const front = await openConsole('front-alpha');
    await expect.poll(() => front.locator('#banner').innerText()).toMatch(/SWITCHBOARD_ADMIN_KEYS/);
    expect(await front.content()).not.toContain(turnId);
    await front.close();
  });

  it('shows a rejected reload with its file and line, without a reload of the page', async () => {
    const page = await openConsole('admin-alpha');
    await page.locator('#agents tr[data-agent="hotel_agent"]').waitFor();
    expect(await page.locator('#reload-error').isHidden()).toBe(true);
    const good = readFileSync(running.board.configPath, 'utf8');
    writeFileSync(running.board.configPath, `${good}\n  - id: broken_agent\n    endpoint: [unclosed\n`);
    await page.locator('#reload-error').waitFor({ state: 'visible', timeout: 20_000 });
    expect(await page.locator('#reload-error').innerText()).toMatch(/agents_config\.yaml:\d+:\d+/);
    // The rejected file changed nothing: the same agents stay live.
    expect(await page.locator('#agents tbody tr').count()).toBe(agentIds.length);
    await page.close();
  }, 30_000);

  it('stays inside a 375 px viewport', async () => {
    const page = await openConsole('admin-alpha', 375);
    await page.locator(`#turn-list tr[data-turn="${turnId}"] button`).click();
    await page.locator('.waterfall .lane[data-call]').first().waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.close();
  });
});
