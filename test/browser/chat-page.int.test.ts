/**
 * The chat page in a real headless Chromium (Debian's chromium driven by
 * playwright-core): a multi-intent turn renders thinking steps, agent rows and
 * one final answer; a missing-slot turn is completed by using the widgets; at
 * 375 px every element stays inside the viewport and the key controls are
 * visible and do not overlap; the English UI asks and completes in English;
 * the phone widget refuses a bad number and sends a good one; with API keys on,
 * the page sends the key given once by `?key=` or typed into its key field;
 * the stop button ends a running turn as cancelled; a booking runs only after
 * its confirmation button is clicked, and declining it runs nothing. The page
 * follows the conversation's language (an English turn on a Chinese page is
 * English throughout, its widget answer too), a booking has one confirmation
 * heading, Confirm and Cancel stay side by side at 375, 768 and 1280 px, and
 * "new conversation" starts a fresh session.
 */
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, type Page } from 'playwright-core';
import { launchHeadlessChromium, type HeadlessChromium } from '../support/headless-chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSwitchboard, type DemoSwitchboard } from '../support/demo-switchboard.js';
import { hangReply, jsonReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

/** Where the 375 px screenshot is written (kept for a look by a person). */
export const SCREENSHOT = join(tmpdir(), 'switchboard-chat-375.png');

let running: DemoSwitchboard;
let board: TestSwitchboard;
let context: BrowserContext;
let browser: HeadlessChromium | undefined;

const CHAT_PAGE = readFileSync(new URL('../../public/chat.html', import.meta.url), 'utf8');

beforeAll(async () => {
  running = await startDemoSwitchboard({ chatPage: CHAT_PAGE });
  board = running.board;
  browser = await launchHeadlessChromium();
  context = browser.context;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await running?.close();
});

async function openPage(width = 1000, url = board.url, search = ''): Promise<Page> {
  const page = await context.newPage();
  await page.setViewportSize({ width, height: 800 });
  await page.goto(`${url}/${search}`);
  await page.evaluate(() => window.localStorage.clear());
  await page.reload();
  return page;
}

async function ask(page: Page, query: string): Promise<void> {
  await page.fill('#query', query);
  await page.click('#send');
}

describe('chat page', () => {
  it('renders a multi-intent turn: thinking steps, one row per agent, one final answer with each result once', async () => {
    const page = await openPage();
    await ask(page, '帮我订北京的酒店，明天入住，再告诉我北京明天的天气');
    const final = page.locator('.turn .final[data-streaming="false"]');
    await final.waitFor({ timeout: 30_000 });
    const answer = await final.textContent();
    expect(answer).toContain('酒店服务');
    expect(answer).toContain('天气查询');
    expect(await page.locator('.turn .step').count()).toBeGreaterThan(2);
    expect(await page.locator('.turn .agent').count()).toBe(2);
    expect(await page.locator('.agent[data-status="done"]').count()).toBe(2);
    // Distinct styles: a thinking step and the final answer do not look alike.
    const [stepBackground, finalBackground] = await Promise.all([
      page.locator('.step').first().evaluate((node) => getComputedStyle(node).backgroundColor),
      final.evaluate((node) => getComputedStyle(node).backgroundColor),
    ]);
    expect(stepBackground).not.toBe(finalBackground);
    // The hotel agent's result text reaches the page once (in the final answer), not again in its row.
    const body = (await page.locator('#log').textContent()) ?? '';
    const bookingIds = body.match(/HTL[-_A-Z0-9]+/g) ?? [];
    expect(bookingIds.length).toBeGreaterThan(0);
    expect(new Set(bookingIds).size).toBe(bookingIds.length);
    await page.close();
  }, 60_000);

  it('completes a missing-slot turn through the widgets: a city picker from key_options and a date picker', async () => {
    const page = await openPage();
    await ask(page, '帮我订酒店');
    const form = page.locator('.needs form');
    await form.waitFor({ timeout: 30_000 });
    const city = form.locator('select[name="city"]');
    expect(await city.getAttribute('data-widget')).toBe('city_selector');
    const options = await city.locator('option').allTextContents();
    expect(options).toEqual(expect.arrayContaining(['北京', '上海', '广州']));
    const date = form.locator('input[name="check_in_date"]');
    expect(await date.getAttribute('type')).toBe('date');
    // Submitting empty fields is refused on the page.
    await form.locator('button[type="submit"]').click();
    expect(await page.locator('.turn').count()).toBe(1);
    await city.selectOption('上海');
    await date.fill('2026-12-01');
    await form.locator('button[type="submit"]').click();
    const second = page.locator('.turn').nth(1).locator('.final[data-streaming="false"]');
    await second.waitFor({ timeout: 30_000 });
    expect(await second.textContent()).toMatch(/上海.*2026-12-01|2026-12-01.*上海/s);
    expect(await page.locator('.turn').nth(1).locator('.agent[data-agent="hotel_agent"][data-status="done"]').count()).toBe(1);
    await page.close();
  }, 60_000);

  it('fits a 375 px screen: nothing wider than the viewport, key controls visible and not overlapping', async () => {
    const page = await openPage(375);
    await ask(page, '帮我订酒店');
    await page.locator('.needs form').waitFor({ timeout: 30_000 });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    const layout = await page.evaluate(() => {
      const width = document.documentElement.clientWidth;
      const box = (node: Element) => {
        const rect = node.getBoundingClientRect();
        return { left: rect.left, right: rect.right, top: rect.top, bottom: rect.bottom, width: rect.width, height: rect.height };
      };
      const outside = Array.from(document.querySelectorAll('body *'))
        .filter((node) => getComputedStyle(node).display !== 'none' && node.getBoundingClientRect().width > 0)
        .map((node) => ({ node: `${node.tagName.toLowerCase()}${node.id ? `#${node.id}` : ''}.${node.className}`, ...box(node) }))
        .filter((rect) => rect.left < -0.5 || rect.right > width + 0.5);
      const named = (selector: string) => Array.from(document.querySelectorAll(selector), (node) => ({ selector, ...box(node) }));
      return {
        width,
        scrollWidth: document.documentElement.scrollWidth,
        outside,
        controls: [...named('#query'), ...named('#send'), ...named('#cancel')],
        fields: named('.needs form label'),
        submit: named('.needs form button[type="submit"]'),
        final: named('.turn .final'),
      };
    });
    expect(layout.width).toBe(375);
    expect(layout.scrollWidth).toBeLessThanOrEqual(layout.width);
    expect(layout.outside).toEqual([]);
    type Rect = { selector: string; left: number; right: number; top: number; bottom: number; width: number; height: number };
    const overlap = (a: Rect, b: Rect) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
    const pairs = (rects: Rect[]) => rects.flatMap((a, index) => rects.slice(index + 1).filter((b) => overlap(a, b)).map((b) => `${a.selector} × ${b.selector}`));
    // The input row: query, send and stop side by side, each usable (not squeezed to nothing), none on top of another.
    expect(layout.controls).toHaveLength(3);
    for (const control of layout.controls) expect(control.width, control.selector).toBeGreaterThan(40);
    expect(layout.controls[0]!.width).toBeGreaterThan(150);
    expect(pairs(layout.controls)).toEqual([]);
    // The widget form: both fields and the submit button shown, none overlapping.
    expect(layout.fields).toHaveLength(2);
    expect(layout.submit).toHaveLength(1);
    expect(pairs([...layout.fields, ...layout.submit])).toEqual([]);
    expect(layout.final[0]!.height).toBeGreaterThan(0);
    for (const selector of ['#query', '#send', '.needs select[name="city"]', '.needs input[name="check_in_date"]', '.needs button[type="submit"]', '.turn .final']) {
      expect(await page.locator(selector).isVisible(), selector).toBe(true);
    }
    await page.close();
  }, 60_000);

  it('speaks English when switched: English controls, English key names, and the widgets complete the turn', async () => {
    const page = await openPage();
    await page.click('#language');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');
    expect(await page.locator('#send').textContent()).toBe('Send');
    expect(await page.locator('#cancel').textContent()).toBe('Stop');
    expect(await page.locator('#query').getAttribute('placeholder')).toBe('What do you need?');
    await ask(page, 'Book a hotel');
    const needs = page.locator('.turn').first().locator('.needs');
    await needs.waitFor({ timeout: 30_000 });
    const first = page.locator('.turn').first().locator('.final[data-streaming="false"]');
    expect(await first.textContent()).not.toMatch(/[\u4e00-\u9fff]/);
    expect(await needs.locator('div').first().textContent()).toBe('Please fill in:');
    expect(await needs.locator('label > span:first-child').allTextContents()).toEqual(['check-in city', 'check-in date']);
    expect(await needs.locator('button[type="submit"]').textContent()).toBe('Submit');
    await needs.locator('select[name="city"]').selectOption('Shanghai');
    await needs.locator('input[name="check_in_date"]').fill('2026-12-01');
    await needs.locator('button[type="submit"]').click();
    const second = page.locator('.turn').nth(1);
    expect(await second.locator('.user').textContent()).toBe('check-in city: Shanghai, check-in date: 2026-12-01');
    const answer = second.locator('.final[data-streaming="false"]');
    await answer.waitFor({ timeout: 30_000 });
    expect(await second.locator('.agent[data-agent="hotel_agent"][data-status="done"]').count()).toBe(1);
    expect(await answer.textContent()).toMatch(/Shanghai|上海/);
    expect(await second.locator('.agent .state').first().textContent()).toBe('✓ done');
    await page.close();
  }, 60_000);

  it('resumes a turn after a reload from the last event id it saw', async () => {
    const page = await openPage();
    await ask(page, '帮我订北京的酒店，明天入住');
    await page.locator('.turn .final[data-streaming="false"]').waitFor({ timeout: 30_000 });
    const { sessionId, userId } = await page.evaluate(() => ({ sessionId: localStorage.getItem('sb_session'), userId: localStorage.getItem('sb_user') }));
    // Pretend the page was reloaded after the third event of that turn.
    const response = await fetch(`${board.url}/v1/sessions/${sessionId}/stream?user_id=${userId}`);
    const firstId = /^id: (\S+):\d+$/m.exec(await response.text())?.[1];
    expect(firstId).toBeTruthy();
    await page.evaluate((saved) => localStorage.setItem('sb_turn', JSON.stringify(saved)), { sessionId, lastEventId: `${firstId}:3` });
    await page.reload();
    const resumed = page.locator('.turn .final[data-streaming="false"]');
    await resumed.waitFor({ timeout: 30_000 });
    expect(await resumed.textContent()).toContain('酒店服务');
    expect(await page.evaluate(() => localStorage.getItem('sb_turn'))).toBeNull();
    await page.close();
  }, 60_000);

  it('shows an error banner with a retry button when the server refuses the request', async () => {
    const page = await openPage();
    await page.route('**/v1/chat', (route) => route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: { code: 'NOT_READY', message: 'draining' } }) }));
    await ask(page, '你好');
    await page.locator('#banner.shown').waitFor({ timeout: 10_000 });
    expect(await page.locator('#banner-text').textContent()).toContain('draining');
    await page.unroute('**/v1/chat');
    await page.click('#retry');
    await page.locator('.turn').nth(1).locator('.final[data-streaming="false"]').waitFor({ timeout: 30_000 });
    expect(await page.locator('#banner.shown').count()).toBe(0);
    await page.close();
  }, 60_000);
});

describe('chat page offline', () => {
  it('shows the offline state when the network is gone and retries the same message once it is back', async () => {
    const page = await openPage();
    await context.setOffline(true);
    try {
      await ask(page, '北京明天天气怎么样');
      await page.locator('#banner.shown').waitFor({ timeout: 10_000 });
      expect(await page.locator('#banner-text').textContent()).toContain('网络已断开');
      expect(await page.locator('#retry').isVisible()).toBe(true);
    } finally {
      await context.setOffline(false);
    }
    await page.locator('#banner-text', { hasText: '网络已恢复' }).waitFor({ timeout: 10_000 });
    await page.click('#retry');
    const retried = page.locator('.turn').nth(1).locator('.final[data-streaming="false"]');
    await retried.waitFor({ timeout: 30_000 });
    expect(await retried.textContent()).toContain('北京');
    expect(await page.locator('#banner.shown').count()).toBe(0);
    await page.close();
  }, 60_000);
});

describe('chat page with bookings behind confirmation and a weather service that never answers', () => {
  let guarded: DemoSwitchboard;
  let weather: FakeAgent;

  beforeAll(async () => {
    weather = await startFakeAgent(hangReply());
    guarded = await startDemoSwitchboard({ chatPage: CHAT_PAGE, keepSideEffects: true, replace: { weather: weather.url } });
  }, 60_000);
  afterAll(async () => {
    await guarded?.close();
    await weather?.close();
  });

  it('the stop button ends a running turn as cancelled and releases the service call', async () => {
    const page = await openPage(1000, guarded.board.url);
    await ask(page, '北京明天天气怎么样');
    await page.locator('.turn .agent[data-agent="weather_agent"][data-status="running"]').waitFor({ timeout: 30_000 });
    expect(await page.locator('#cancel').isEnabled()).toBe(true);
    await page.click('#cancel');
    const turn = page.locator('.turn[data-outcome="cancelled"]');
    await turn.waitFor({ timeout: 10_000 });
    expect(await turn.locator('.final[data-streaming="false"]').textContent()).toMatch(/停止|取消/);
    await weather.waitForAborts(1, 5_000);
    // The page is ready for the next message: send is back, stop is off, no error banner.
    expect(await page.locator('#send').isEnabled()).toBe(true);
    expect(await page.locator('#cancel').isEnabled()).toBe(false);
    expect(await page.locator('#banner.shown').count()).toBe(0);
    await page.close();
  }, 60_000);

  it('a person books by clicking only: city and date widgets, then the confirmation button runs the booking', async () => {
    const page = await openPage(1000, guarded.board.url);
    await ask(page, '帮我订酒店');
    const form = page.locator('.turn').first().locator('.needs form');
    await form.waitFor({ timeout: 30_000 });
    await form.locator('select[name="city"]').selectOption('北京');
    await form.locator('input[name="check_in_date"]').fill('2026-12-01');
    await form.locator('button[type="submit"]').click();
    // The booking has every value now, and waits for the user's yes.
    const asked = page.locator('.turn').nth(1);
    const panel = asked.locator('.confirm');
    await panel.waitFor({ timeout: 30_000 });
    expect(await asked.locator('.agent[data-agent="hotel_agent"]').count()).toBe(0);
    expect(await panel.textContent()).toContain('北京');
    // The held booking is summarised once: in its panel, not again in the answer above it nor in the next turn's title.
    const summary = (await panel.locator('div > span').first().textContent()) ?? '';
    expect(summary).toContain('2026-12-01');
    expect((await asked.textContent())!.split(summary).length - 1).toBe(1);
    await panel.getByRole('button', { name: '确认' }).click();
    const booked = page.locator('.turn').nth(2);
    await booked.locator('.final[data-streaming="false"]').waitFor({ timeout: 30_000 });
    expect(await booked.locator('.user').textContent()).toBe('✓ 确认');
    expect(await page.locator('#log').textContent()).not.toContain(`✓ ${summary}`);
    expect(await booked.locator('.agent[data-agent="hotel_agent"][data-status="done"]').count()).toBe(1);
    expect(await booked.locator('.final').textContent()).toMatch(/北京[\s\S]*HTL-[A-Z0-9]+/);
    expect(await booked.getAttribute('data-outcome')).toBe('completed');
    expect(await panel.getByRole('button', { name: '确认' }).isDisabled()).toBe(true);
    await page.close();
  }, 60_000);

  it('declining a booking with its button runs nothing and says so', async () => {
    const page = await openPage(1000, guarded.board.url);
    await ask(page, '帮我订上海的酒店，明天入住');
    const panel = page.locator('.turn').first().locator('.confirm');
    await panel.waitFor({ timeout: 30_000 });
    await panel.getByRole('button', { name: '取消' }).click();
    const second = page.locator('.turn').nth(1);
    await second.locator('.final[data-streaming="false"]').waitFor({ timeout: 30_000 });
    expect(await second.locator('.agent').count()).toBe(0);
    const answer = (await second.locator('.final').textContent()) ?? '';
    expect(answer).toContain('没有执行');
    expect(answer).not.toMatch(/HTL-/);
    await page.close();
  }, 60_000);
});

describe('chat page never hides the end of the answer under its input bar', () => {
  for (const width of [1280, 375]) {
    it(`at ${width} px: after several turns and a booking, the last answer ends above the sticky input bar`, async () => {
      const page = await openPage(width);
      for (const query of ['帮我订北京的酒店，明天入住，安排明天早上7点首都机场接机，再告诉我北京明天的天气', '上海明天天气怎么样', '帮我订上海的酒店，后天入住']) {
        const turns = await page.locator('.turn').count();
        await ask(page, query);
        await page.locator('.turn').nth(turns).locator('.final[data-streaming="false"]').waitFor({ timeout: 30_000 });
        await page.locator('.turn').nth(turns).and(page.locator('[data-outcome]')).waitFor({ timeout: 10_000 });
        const layout = await page.evaluate(() => {
          const finals = document.querySelectorAll('.turn .final');
          const last = finals[finals.length - 1]!.getBoundingClientRect();
          const bar = document.getElementById('ask')!.getBoundingClientRect();
          return { finalBottom: last.bottom, finalTop: last.top, barTop: bar.top, scrollable: document.documentElement.scrollHeight > window.innerHeight };
        });
        expect(layout.finalBottom, JSON.stringify(layout)).toBeLessThanOrEqual(layout.barTop + 0.5);
      }
      // The page did have to scroll: the check above was made with the bar over the log.
      expect(await page.evaluate(() => document.documentElement.scrollHeight > window.innerHeight)).toBe(true);
      await page.close();
    }, 90_000);
  }
});

describe('chat page phone widget', () => {
  let phoneBoard: TestSwitchboard;
  let callback: FakeAgent;

  beforeAll(async () => {
    callback = await startFakeAgent(jsonReply({ output: { ticket: 'CB-1' }, message: '已登记回电，工单 CB-1。' }));
    const registryYaml = `version: 1
agents:
  - id: callback_agent
    name: 回电服务
    description: 登记客服回电
    keywords: ["回电", "回拨", "callback"]
    examples: ["请给我回电"]
    endpoint: { url: ${callback.url}, protocol: http-json, timeout_ms: 3000 }
    required_semantic_keys:
      - key: phone
        description: 联系电话
        widget: phone_input
        extract: { type: phone }
`;
    phoneBoard = await startTestSwitchboard({ registryYaml, chatPage: CHAT_PAGE });
  }, 60_000);
  afterAll(async () => {
    await phoneBoard?.close();
    await callback?.close();
  });

  it('rejects a bad number on the page, accepts a good one and sends it as the next turn', async () => {
    const page = await openPage(1000, phoneBoard.url);
    await ask(page, '请给我回电');
    const form = page.locator('.needs form');
    await form.waitFor({ timeout: 30_000 });
    const phone = form.locator('input[name="phone"]');
    expect(await phone.getAttribute('data-widget')).toBe('phone_input');
    expect(await phone.getAttribute('type')).toBe('tel');
    await phone.fill('12345');
    await form.locator('button[type="submit"]').click();
    expect(await form.locator('.hint').textContent()).toBe('请输入 11 位手机号');
    expect(await page.locator('.turn').count()).toBe(1);
    expect(callback.calls).toHaveLength(0);
    await phone.fill('13812345678');
    await form.locator('button[type="submit"]').click();
    const second = page.locator('.turn').nth(1);
    await second.locator('.final[data-streaming="false"]').waitFor({ timeout: 30_000 });
    expect(await second.locator('.user').textContent()).toBe('联系电话：13812345678');
    expect(await second.locator('.agent[data-agent="callback_agent"][data-status="done"]').count()).toBe(1);
    expect(callback.calls).toHaveLength(1);
    expect((callback.calls[0]!.body as { inputs: { phone: string } }).inputs.phone).toBe('13812345678');
    expect(await second.locator('.final').textContent()).toContain('CB-1');
    await page.close();
  }, 60_000);
});

describe('chat page with API keys on', () => {
  let keyed: DemoSwitchboard;
  beforeAll(async () => {
    keyed = await startDemoSwitchboard({ chatPage: CHAT_PAGE, apiKeys: ['page-key-1'] });
  }, 60_000);
  afterAll(() => keyed?.close());

  it('takes the key once from ?key=, keeps it out of the address bar and localStorage, and sends it on every call', async () => {
    const page = await openPage(1000, keyed.board.url, '?key=page-key-1');
    expect(new URL(page.url()).search).toBe('');
    expect(await page.evaluate(() => sessionStorage.getItem('sb_key'))).toBe('page-key-1');
    expect(await page.evaluate(() => JSON.stringify(localStorage))).not.toContain('page-key-1');
    const sent: (string | undefined)[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/v1/')) sent.push(request.headers().authorization);
    });
    await ask(page, '北京明天天气怎么样');
    const final = page.locator('.turn .final[data-streaming="false"]');
    await final.waitFor({ timeout: 30_000 });
    expect(await final.textContent()).toContain('北京');
    expect(await page.locator('#banner.shown').count()).toBe(0);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((header) => header === 'Bearer page-key-1')).toBe(true);
    await page.close();
  }, 60_000);

  it('without a key shows the refusal and a key field; the key typed there retries the same message', async () => {
    const page = await openPage(1000, keyed.board.url);
    await page.evaluate(() => sessionStorage.clear());
    await ask(page, '北京明天天气怎么样');
    await page.locator('#banner.shown').waitFor({ timeout: 10_000 });
    expect(await page.locator('#banner-text').textContent()).toContain('authorization');
    await page.locator('#key-form.shown').waitFor({ timeout: 5_000 });
    await page.fill('#api-key', 'page-key-1');
    await page.click('#api-key-save');
    const retried = page.locator('.turn').nth(1).locator('.final[data-streaming="false"]');
    await retried.waitFor({ timeout: 30_000 });
    expect(await retried.textContent()).toContain('北京');
    expect(await page.locator('#key-form.shown').count()).toBe(0);
    expect(await page.locator('#banner.shown').count()).toBe(0);
    await page.close();
  }, 60_000);
});

describe('chat page follows the conversation', () => {
  let guarded: DemoSwitchboard;
  beforeAll(async () => {
    guarded = await startDemoSwitchboard({ chatPage: CHAT_PAGE, keepSideEffects: true });
  }, 60_000);
  afterAll(async () => {
    await guarded?.close();
  });

  it('an English turn on a Chinese page: every word of the turn and the controls in English, the widget answer in English', async () => {
    const page = await openPage();
    expect(await page.locator('#send').textContent()).toBe('发送');
    await ask(page, 'Book a hotel');
    const first = page.locator('.turn').first();
    const needs = first.locator('.needs');
    await needs.waitFor({ timeout: 30_000 });
    expect(await needs.locator('div').first().textContent()).toBe('Please fill in:');
    expect(await needs.locator('select[name="city"] option').first().textContent()).toBe('Choose…');
    expect(await needs.locator('button[type="submit"]').textContent()).toBe('Submit');
    expect(await first.textContent()).not.toMatch(/[\u3400-\u9fff，：]/);
    // The page's own controls follow the turn's language.
    expect(await page.locator('#send').textContent()).toBe('Send');
    expect(await page.locator('#new-chat').textContent()).toBe('New conversation');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');
    await needs.locator('select[name="city"]').selectOption('Shanghai');
    await needs.locator('input[name="check_in_date"]').fill('2026-12-01');
    await needs.locator('button[type="submit"]').click();
    const second = page.locator('.turn').nth(1);
    expect(await second.locator('.user').textContent()).toBe('check-in city: Shanghai, check-in date: 2026-12-01');
    await second.locator('.final[data-streaming="false"]').waitFor({ timeout: 30_000 });
    expect(await second.locator('.agent .state').first().textContent()).toBe('✓ done');
    // Back to Chinese: the next turn and the controls speak Chinese again.
    await ask(page, '北京明天天气怎么样');
    const third = page.locator('.turn').nth(2);
    await third.locator('.final[data-streaming="false"]').waitFor({ timeout: 30_000 });
    expect(await third.locator('.agent .state').first().textContent()).toBe('✓ 已完成');
    expect(await page.locator('#send').textContent()).toBe('发送');
    await page.close();
  }, 90_000);

  it('a booking asks once: one confirmation heading, Confirm and Cancel in the turn\'s language', async () => {
    for (const [query, confirm, reject] of [
      ['Book a hotel in Shanghai for tomorrow', 'Confirm', 'Cancel'],
      ['帮我订上海的酒店，明天入住', '确认', '取消'],
    ] as const) {
      const page = await openPage(1280, guarded.board.url);
      await ask(page, query);
      const turn = page.locator('.turn').first();
      const panel = turn.locator('.confirm');
      await panel.waitFor({ timeout: 30_000 });
      const finalLines = ((await turn.locator('.final').textContent()) ?? '').split('\n').filter((line) => /[：:]\s*$/.test(line.trim()));
      const panelHeadings = await panel.locator('.heading').count();
      expect(finalLines.length + panelHeadings, `${query}: ${finalLines.join(' | ')}`).toBe(1);
      expect(await panel.getByRole('button').allTextContents()).toEqual([confirm, reject]);
      await page.close();
    }
  }, 90_000);

  for (const width of [375, 768, 1280]) {
    it(`at ${width} px: the confirmation and widget panels fit, and Confirm and Cancel stay side by side`, async () => {
      const page = await openPage(width, guarded.board.url);
      await ask(page, '帮我订酒店');
      await page.locator('.turn').first().locator('.needs form').waitFor({ timeout: 30_000 });
      await page.locator('.turn').first().and(page.locator('[data-outcome]')).waitFor({ timeout: 10_000 });
      await ask(page, '帮我订上海的酒店，明天入住');
      await page.locator('.turn').nth(1).locator('.confirm').waitFor({ timeout: 30_000 });
      const layout = await page.evaluate(() => {
        const width = document.documentElement.clientWidth;
        const outside = Array.from(document.querySelectorAll('body *'))
          .filter((node) => getComputedStyle(node).display !== 'none' && node.getBoundingClientRect().width > 0)
          .filter((node) => node.getBoundingClientRect().left < -0.5 || node.getBoundingClientRect().right > width + 0.5)
          .map((node) => node.tagName);
        const buttons = Array.from(document.querySelectorAll('.confirm .item button'), (node) => node.getBoundingClientRect());
        const summary = document.querySelector('.confirm .item > span')!.getBoundingClientRect();
        const header = Array.from(document.querySelectorAll('header > *'), (node) => node.getBoundingClientRect());
        return { width, scrollWidth: document.documentElement.scrollWidth, outside, buttons: buttons.map((rect) => ({ top: rect.top, left: rect.left, right: rect.right, bottom: rect.bottom })), summary: { right: summary.right, bottom: summary.bottom, top: summary.top }, header: header.length };
      });
      expect(layout.width).toBe(width);
      expect(layout.scrollWidth).toBeLessThanOrEqual(width);
      expect(layout.outside).toEqual([]);
      const [yes, no] = layout.buttons;
      expect(Math.abs(yes!.top - no!.top), JSON.stringify(layout.buttons)).toBeLessThan(1);
      expect(yes!.right).toBeLessThanOrEqual(no!.left);
      // The summary is beside the buttons or above them, never under them.
      expect(layout.summary.bottom <= yes!.top + 0.5 || layout.summary.right <= yes!.left + 0.5).toBe(true);
      for (const selector of ['#new-chat', '#language', '#query', '#send', '.needs button[type="submit"]']) expect(await page.locator(selector).isVisible(), selector).toBe(true);
      await page.close();
    }, 90_000);
  }

  it('"new conversation" starts a fresh session with an empty log', async () => {
    const page = await openPage();
    await ask(page, '北京明天天气怎么样');
    await page.locator('.turn .final[data-streaming="false"]').waitFor({ timeout: 30_000 });
    const before = await page.evaluate(() => window.localStorage.getItem('sb_session'));
    expect(before).toBeTruthy();
    await page.click('#new-chat');
    expect(await page.locator('.turn').count()).toBe(0);
    expect(await page.locator('#session').textContent()).toBe('');
    expect(await page.evaluate(() => window.localStorage.getItem('sb_session'))).toBeNull();
    await ask(page, '上海明天天气怎么样');
    await page.locator('.turn .final[data-streaming="false"]').waitFor({ timeout: 30_000 });
    const after = await page.evaluate(() => window.localStorage.getItem('sb_session'));
    expect(after).toBeTruthy();
    expect(after).not.toBe(before);
    await page.close();
  }, 60_000);
});
