/**
 * docs/api.md#personal-data, "sub-agents receive the real values they declared as keys;
 * nothing else does": a member lookup (declares `phone`) and a gift shipment
 * that depends on it (declares `email`) run in one turn whose text holds both
 * values. Each agent's message keeps only its own declared value readable;
 * the dependent's `upstream` (the lookup's output, with the member's phone
 * and a manager's phone) arrives with every personal value masked except the
 * dependent's own e-mail.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

const PHONE = '13912345678';
const MANAGER_PHONE = '13700001111';
const EMAIL = 'li.si@example.com';
const ID_CARD = '11010519491231002X';

interface SentBody {
  message: string;
  inputs: Record<string, unknown>;
  upstream: Record<string, { agent: string; output: Record<string, unknown> }>;
}

describe('personal values a sub-agent did not declare reach it masked', () => {
  let member: FakeAgent;
  let gift: FakeAgent;
  let board: TestSwitchboard;

  beforeAll(async () => {
    member = await startFakeAgent(
      jsonReply({ output: { name: '李四', phone: PHONE, manager_phone: MANAGER_PHONE, id_no: ID_CARD, email: EMAIL, level: 'gold' }, message: `会员 ${PHONE} 已找到` }),
    );
    gift = await startFakeAgent(jsonReply({ output: { shipment: 'SH-1' }, message: '礼品已寄出' }));
    board = await startTestSwitchboard({
      registryYaml: `version: 1
agents:
  - id: member_agent
    name: 会员查询
    description: 会员资料查询 look up a member
    keywords: [会员, 资料]
    endpoint: { url: "${member.url}", retries: 0 }
    required_semantic_keys:
      - { key: phone, description: 手机号, extract: { type: phone } }
  - id: gift_agent
    name: 礼品寄送
    description: 礼品寄送 send a gift to a member
    keywords: [礼品, 寄送]
    depends_on: [member_agent]
    endpoint: { url: "${gift.url}", retries: 0 }
    required_semantic_keys:
      - { key: email, description: 邮箱, extract: { type: email } }
`,
    });
  });

  afterAll(async () => {
    await board.close();
    await member.close();
    await gift.close();
  });

  it('masks the message and upstream of each agent except the values it declared', async () => {
    await board.chat(`查询会员 ${PHONE} 的资料，然后把礼品寄送通知发到 ${EMAIL}`, { sessionId: 'undeclared-1' });
    expect(member.calls).toHaveLength(1);
    expect(gift.calls).toHaveLength(1);
    const memberBody = member.calls[0]!.body as SentBody;
    const giftBody = gift.calls[0]!.body as SentBody;

    // Each agent has the real value of its own key.
    expect(memberBody.inputs).toEqual({ phone: PHONE });
    expect(giftBody.inputs).toEqual({ email: EMAIL });
    // The member lookup never sees the e-mail it did not declare.
    expect(JSON.stringify(memberBody)).not.toContain(EMAIL);
    // The gift shipment never sees a phone or ID number, in its message or in the lookup's output.
    const giftText = JSON.stringify(giftBody);
    for (const value of [PHONE, MANAGER_PHONE, ID_CARD]) expect(giftText).not.toContain(value);
    const upstream = Object.values(giftBody.upstream);
    expect(upstream.map((item) => item.agent)).toEqual(['member_agent']);
    expect(upstream[0]!.output).toEqual({ name: '李四', phone: '139****5678', manager_phone: '137****1111', id_no: '110105********002X', email: EMAIL, level: 'gold' });
  });
});
