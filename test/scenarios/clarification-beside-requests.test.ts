/**
 * A message with several requests where one part is routed to no agent
 * (contract v4 "Clarification", several requests in one sentence): the
 * routed requests run, and the part no agent took is asked about with options
 * instead of being dropped in silence. A choice runs that part's words on the
 * chosen agent (its side effect held for a yes); small talk, a value for a
 * routed request, or a part near no agent asks nothing. The registry (an HR
 * desk: leave, payslips, IT tickets, meeting rooms) is written for this test.
 */
import { describe, expect, it } from 'vitest';
import { useAnsweringBoard } from '../support/answering-board.js';
import { finalEvent, stageEvents } from '../support/switchboard-harness.js';
import type { ResponseState } from '../../src/events/index.js';

const NAMES = ['leave', 'payslip', 'ticket', 'room'] as const;
type Name = (typeof NAMES)[number];

function registry(urls: Record<Name, string>): string {
  return `version: 1
agents:
  - id: leave_agent
    name: Leave requests
    description: Apply for annual leave, sick leave or time off
    examples: ["I want to take annual leave next Monday", "apply for sick leave tomorrow", "请假申请，明天病假"]
    keywords: ["leave", "time off", "请假", "休假"]
    side_effects: true
    endpoint: { url: ${JSON.stringify(urls.leave)}, protocol: http-json }
    required_semantic_keys:
      - key: start_date
        description: first day of leave
        extract: { type: date }
  - id: payslip_agent
    name: Payslips
    description: Show salary slips and pay details for a month
    examples: ["show me my payslip for March", "how much was I paid last month", "查一下我三月份的工资条"]
    keywords: ["payslip", "salary", "工资"]
    endpoint: { url: ${JSON.stringify(urls.payslip)}, protocol: http-json }
  - id: it_ticket_agent
    name: IT helpdesk
    description: Open an IT support ticket for laptop, password or VPN problems
    examples: ["my laptop won't turn on", "reset my password please", "VPN keeps disconnecting", "电脑坏了，帮我报修"]
    keywords: ["laptop", "password", "vpn", "电脑", "报修"]
    endpoint: { url: ${JSON.stringify(urls.ticket)}, protocol: http-json }
  - id: room_agent
    name: Meeting rooms
    description: Find and book a meeting room
    examples: ["book a meeting room for 3pm", "is there a free room on floor 5", "帮我订个会议室"]
    keywords: ["meeting room", "会议室"]
    side_effects: true
    endpoint: { url: ${JSON.stringify(urls.room)}, protocol: http-json }
    required_semantic_keys:
      - key: date
        description: meeting date
        extract: { type: date }
`;
}

const running = useAnsweringBoard(NAMES, registry);
const calls = () => running.calls();
const outcomeOf = (events: readonly ResponseState[]) => events.find((event) => event.type === 'done')!.metadata.state?.outcome;
const optionsOf = (events: readonly ResponseState[]) => finalEvent(events).metadata.clarification?.options ?? [];

describe('a part of a several-request message that no agent took', () => {
  it('is asked about with options while the routed request runs', async () => {
    const before = calls();
    const events = await running.board.chat('show my payslip for October, and I need a day off next Friday', { sessionId: 'aside-1' });
    expect(calls()).toEqual({ ...before, payslip: before.payslip! + 1 });
    const options = optionsOf(events);
    expect(options.length).toBeGreaterThanOrEqual(1);
    expect(options.length).toBeLessThanOrEqual(3);
    expect(options.map((option) => option.sub_agent_id)).toContain('leave_agent');
    const final = finalEvent(events);
    expect(final.content).toContain('payslip answered');
    expect(final.content).toContain('I need a day off next Friday');
    for (const option of options) expect(final.content).toContain(option.label);
    expect(final.content).not.toMatch(/_agent/);
    expect(stageEvents(events, 'plan_done')[0]?.metadata.clarification?.options).toEqual(options);
    expect(outcomeOf(events)).not.toBe('completed');
  });

  it('a choice runs the part\'s words on the chosen agent: its side effect is held, then sent on yes with its own value', async () => {
    const options = optionsOf(await running.board.chat('show my payslip for October, and I need a day off next Friday', { sessionId: 'aside-2' }));
    const leave = options.find((option) => option.sub_agent_id === 'leave_agent')!;
    const before = calls();
    const held = await running.board.chat('', { sessionId: 'aside-2', choose: leave.option_id });
    expect(calls()).toEqual(before);
    expect(outcomeOf(held)).toBe('awaiting_confirmation');
    expect(finalEvent(held).content).toContain('I need a day off next Friday');
    expect(finalEvent(held).metadata.clarification).toBeUndefined();
    await running.board.chat('yes', { sessionId: 'aside-2' });
    expect(calls()).toEqual({ ...before, leave: before.leave! + 1 });
    const sent = running.agents.leave.calls.at(-1)!.body as { inputs: { start_date: string } };
    expect(sent.inputs.start_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(new Date(`${sent.inputs.start_date}T12:00:00Z`).getUTCDay()).toBe(5);
  });

  it('is answered by its ordinal in words too, and dropped by a new request', async () => {
    const options = optionsOf(await running.board.chat('I need a day off next Friday and also my laptop screen is broken', { sessionId: 'aside-3' }));
    expect(options.map((option) => option.sub_agent_id)).toContain('leave_agent');
    const dropped = await running.board.chat('show me my payslip for March', { sessionId: 'aside-3' });
    expect(optionsOf(dropped)).toEqual([]);
    expect(outcomeOf(dropped)).toBe('completed');
    const again = optionsOf(await running.board.chat('show my payslip for October, and I need a day off next Friday', { sessionId: 'aside-4' }));
    const ordinal = again.findIndex((option) => option.sub_agent_id === 'leave_agent');
    const words = ['the first one', 'the second one', 'the third one'][ordinal]!;
    const held = await running.board.chat(words, { sessionId: 'aside-4' });
    expect(finalEvent(held).metadata.confirmation?.map((request) => request.sub_agent_id)).toEqual(['leave_agent']);
  });

  it('asks nothing about small talk, a value of a routed request, or a part near no agent that goes on with the routed request', async () => {
    for (const [query, session] of [
      ['show my payslip for October, thanks', 'aside-5'],
      ['book a meeting room, tomorrow', 'aside-6'],
      ['show my payslip for October, and the weather on Mars is lovely', 'aside-7'],
      ['show my payslip for October, as soon as possible please', 'aside-8'],
    ] as const) {
      const events = await running.board.chat(query, { sessionId: session });
      expect(optionsOf(events), query).toEqual([]);
      expect(finalEvent(events).content, query).not.toMatch(/About "|nothing was done/);
    }
  });

  it('a request of its own that is near no agent is said to be not handled, not dropped in silence', async () => {
    const before = calls();
    const events = await running.board.chat('帮我查下工资条，另外我想申请下周一的年假', { sessionId: 'aside-9' });
    expect(calls()).toEqual({ ...before, payslip: before.payslip! + 1 });
    const final = finalEvent(events);
    expect(final.content).toContain('payslip answered');
    expect(final.content).toContain('关于“我想申请下周一的年假”');
    expect(final.content).toContain('没有办理');
    expect(optionsOf(events)).toEqual([]);
  });
});
