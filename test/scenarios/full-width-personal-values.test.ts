/**
 * Personal values written in full-width forms (`１３５１２３４５６７８`,
 * `ｚｈａｎｇ＠ｅｘａｍｐｌｅ．ｃｏｍ`) are the same values to the masking
 * (docs/api.md#personal-data): read after NFKC normalisation, they are masked in storage
 * and never forwarded to a sub-agent that did not declare them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

const WIDE_PHONE = '１３５１２３４５６７８';
const WIDE_EMAIL = 'ｚｈａｎｇ＠ｅｘａｍｐｌｅ．ｃｏｍ';

describe('full-width personal values', () => {
  let shop: FakeAgent;
  let board: TestSwitchboard;

  beforeAll(async () => {
    shop = await startFakeAgent(jsonReply({ output: { order: 'OD-1', contact: WIDE_PHONE }, message: `已下单，联系电话 ${WIDE_PHONE}` }));
    board = await startTestSwitchboard({
      registryYaml: `version: 1
agents:
  - id: shop_agent
    name: 商城
    description: 下单购物 place an order
    keywords: [下单, 购物, order]
    endpoint: { url: "${shop.url}", retries: 0 }
`,
    });
  });
  afterAll(async () => {
    await board.close();
    await shop.close();
  });

  it('are masked in every stored form and not sent to an agent that never declared them', async () => {
    await board.chat(`帮我下单，我的电话 ${WIDE_PHONE}，邮箱 ${WIDE_EMAIL}`, { sessionId: 'wide-1' });
    expect(shop.calls).toHaveLength(1);
    const sent = shop.calls[0]!.rawBody;
    expect(sent).not.toContain(WIDE_PHONE);
    expect(sent).not.toContain('13512345678');
    expect(sent).not.toContain(WIDE_EMAIL);
    expect(sent).toContain('135****5678');
    const history = await (await fetch(`${board.url}/v1/sessions/wide-1/messages?user_id=u1`)).text();
    expect(history).not.toContain(WIDE_PHONE);
    expect(history).toContain('135****5678');
    const stored = readdirSync(board.dir)
      .filter((name) => name.startsWith('switchboard.db'))
      .map((name) => readFileSync(join(board.dir, name)).toString('utf8'))
      .join('\n');
    expect(stored).not.toContain(WIDE_PHONE);
    expect(stored).not.toContain(WIDE_EMAIL);
    expect(stored).toContain('135****5678');
  });
});
