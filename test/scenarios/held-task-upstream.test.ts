/**
 * A held side effect that depends on another agent (contract §2 `upstream`):
 * the look-up runs in the first turn, the booking is held for the user's yes,
 * and when it runs in the next turn it receives the look-up's output as its
 * `upstream`, as it would have in the same turn. A phone number in that output
 * is stored masked with the parked task, never readable in the checkpoint.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { finalEvent, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

let vaccines: FakeAgent;
let booking: FakeAgent;
let board: TestSwitchboard;

beforeAll(async () => {
  vaccines = await startFakeAgent(jsonReply({ output: { due: ['rabies'], clinic_phone: '13912345678' }, message: 'rabies is due' }));
  booking = await startFakeAgent(jsonReply({ output: { booked: true }, message: 'booked' }));
  board = await startTestSwitchboard({
    registryYaml: `version: 1
agents:
  - id: vaccine_agent
    name: 疫苗查询
    description: 查询宠物需要接种的疫苗
    examples: ["查一下狗狗要打什么疫苗", "猫咪疫苗时间表"]
    keywords: ["疫苗"]
    endpoint: { url: ${JSON.stringify(vaccines.url)}, protocol: http-json }
  - id: vet_booking_agent
    name: 兽医预约
    description: 预约兽医门诊
    examples: ["帮我预约兽医", "给狗预约明天看兽医"]
    keywords: ["预约", "兽医"]
    side_effects: true
    depends_on: [vaccine_agent]
    endpoint: { url: ${JSON.stringify(booking.url)}, protocol: http-json }
    required_semantic_keys:
      - key: date
        description: 预约日期
        extract: { type: date }
`,
  });
});

afterAll(async () => {
  await board.close();
  await vaccines.close();
  await booking.close();
});

describe('a held task with an upstream task', () => {
  it('gets the upstream output of the turn that held it when the user confirms', async () => {
    const first = await board.chat('查一下狗狗疫苗，然后给狗预约2026-12-05看兽医', { sessionId: 'held-upstream' });
    expect(vaccines.calls).toHaveLength(1);
    expect(booking.calls).toHaveLength(0);
    expect(finalEvent(first).metadata.confirmation?.map((request) => request.sub_agent_id)).toEqual(['vet_booking_agent']);
    await board.chat('确认', { sessionId: 'held-upstream' });
    expect(vaccines.calls).toHaveLength(1);
    expect(booking.calls).toHaveLength(1);
    const body = booking.calls[0]!.body as { inputs: Record<string, unknown>; upstream: Record<string, { agent: string; output: Record<string, unknown> }> };
    expect(body.inputs).toMatchObject({ date: '2026-12-05' });
    const upstream = Object.values(body.upstream);
    expect(upstream.map((item) => item.agent)).toEqual(['vaccine_agent']);
    expect(upstream[0]!.output.due).toEqual(['rabies']);
    // Stored masked with the parked task; the booking agent declares no phone key, so it gets it masked anyway.
    expect(JSON.stringify(body.upstream)).not.toContain('13912345678');
  });
});
