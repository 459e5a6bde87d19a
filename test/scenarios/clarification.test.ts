/**
 * Clarification instead of "no agent" (contract v4 "Clarification"; issue 30,
 * reproduction 4): on an e-commerce registry written elsewhere (order lookup,
 * logistics, refunds, reward points, spending reports), "how much cashback have
 * I built up" shares too little with the points agent's examples to be routed.
 * The turn asks with up to three options instead of answering out of scope;
 * `choose`, an ordinal or the option's name answers it, and the chosen agent
 * handles the original message (its missing keys asked); anything else is a new request.
 */
import { describe, expect, it } from 'vitest';
import { HttpAgent } from '@ag-ui/client';
import { ClientFactory } from '@a2a-js/sdk/client';
import { Role, TaskState, type Task } from '@a2a-js/sdk';
import { useAnsweringBoard } from '../support/answering-board.js';
import { finalEvent, stageEvents } from '../support/switchboard-harness.js';
import type { ResponseState } from '../../src/events/index.js';

const NAMES = ['order', 'logistics', 'refund', 'points', 'reports'] as const;
type Name = (typeof NAMES)[number];

function registry(urls: Record<Name, string>): string {
  const card = (id: string, name: string, description: string, url: string, examples: string[], extra = '') =>
    `  - id: ${id}\n    name: ${JSON.stringify(name)}\n    description: ${JSON.stringify(description)}\n    examples: ${JSON.stringify(examples)}\n    endpoint: { url: ${JSON.stringify(url)}, protocol: http-json }\n${extra}`;
  return [
    'version: 1',
    'agents:',
    card('order_lookup_agent', 'Order lookup', "Looks up an order's status, items and amount.", urls.order, ['where is my order', 'check the status of my order', 'what did I buy last week', 'show me my recent orders', 'how much did my last order cost']),
    card('logistics_agent', 'Logistics', 'Tracks parcels and deliveries.', urls.logistics, ['where is my parcel', 'when will my package arrive', 'track my delivery', 'has the courier picked it up', 'the parcel is late']),
    card('refund_agent', 'Refunds', 'Starts and follows refunds.', urls.refund, ['I want a refund', 'refund my order', 'how do I return this item', 'where is my refund', 'the refund has not arrived']),
    card('points_agent', 'Reward points', 'Reward points and cashback balance.', urls.points, ['how many points do I have', 'check my reward points', 'what is my points balance', 'how many points did I earn this month', 'can I use my points'],
      '    required_semantic_keys:\n      - key: member_id\n        description: member number\n        extract: { pattern: "\\\\bM\\\\d{4}\\\\b" }\n'),
    card('reports_agent', 'Spending reports', 'Monthly spending reports.', urls.reports, ['send me my monthly report', 'how much did I spend this month', 'show my spending report', 'what did I spend on shoes this year', 'export my report']),
  ].join('\n');
}

const running = useAnsweringBoard(NAMES, registry);
const calls = () => running.calls();
const doneOf = (events: readonly ResponseState[]) => events.find((event) => event.type === 'done')!;
const optionsOf = (events: readonly ResponseState[]) => finalEvent(events).metadata.clarification?.options ?? [];

describe('a request near some agents but routed to none', () => {
  it('asks with up to three options in the query language instead of answering out of scope', async () => {
    const before = calls();
    const events = await running.board.chat('how much cashback have I built up', { sessionId: 'clarify-1' });
    const options = optionsOf(events);
    expect(options.length).toBeGreaterThanOrEqual(1);
    expect(options.length).toBeLessThanOrEqual(3);
    expect(options.map((option) => option.sub_agent_id)).toContain('points_agent');
    expect(new Set(options.map((option) => option.option_id)).size).toBe(options.length);
    const final = finalEvent(events);
    for (const option of options) expect(final.content).toContain(option.label);
    expect(final.content).not.toMatch(/_agent/);
    expect(stageEvents(events, 'plan_done')[0]?.metadata.clarification?.options).toEqual(options);
    expect(doneOf(events).metadata.state?.outcome).toBe('input_required');
    expect(calls()).toEqual(before);
  });

  it('runs the chosen agent on the original message when `choose` names an option; its missing key is asked, then filled', async () => {
    const options = optionsOf(await running.board.chat('how much cashback have I built up', { sessionId: 'clarify-2' }));
    const points = options.find((option) => option.sub_agent_id === 'points_agent')!;
    const before = running.agents.points.calls.length;
    const chosen = await running.board.chat('', { sessionId: 'clarify-2', choose: points.option_id });
    expect(finalEvent(chosen).metadata.semantic_info?.map((info) => [info.sub_agent_id, info.keys])).toEqual([['points_agent', ['member_id']]]);
    expect(finalEvent(chosen).metadata.clarification).toBeUndefined();
    expect(doneOf(chosen).metadata.state?.outcome).toBe('input_required');
    const events = await running.board.chat('M1234', { sessionId: 'clarify-2' });
    expect(running.agents.points.calls.length).toBe(before + 1);
    expect(running.agents.points.calls.at(-1)?.body).toMatchObject({ inputs: { member_id: 'M1234' } });
    expect(finalEvent(events).content).toContain('points answered');
  });

  it('reads an ordinal or the option name as the answer', async () => {
    const asked = (events: readonly ResponseState[]) => finalEvent(events).metadata.semantic_info?.map((info) => info.sub_agent_id) ?? [];
    const first = optionsOf(await running.board.chat('how much cashback have I built up', { sessionId: 'clarify-3' }));
    const position = first.findIndex((option) => option.sub_agent_id === 'points_agent') + 1;
    expect(position).toBeGreaterThan(0);
    expect(asked(await running.board.chat(['the first one', 'the second one', 'the third one'][position - 1]!, { sessionId: 'clarify-3' }))).toEqual(['points_agent']);

    await running.board.chat('how much cashback have I built up', { sessionId: 'clarify-4' });
    expect(asked(await running.board.chat(String(position), { sessionId: 'clarify-4' }))).toEqual(['points_agent']);

    await running.board.chat('how much cashback have I built up', { sessionId: 'clarify-5' });
    expect(asked(await running.board.chat('Reward points', { sessionId: 'clarify-5' }))).toEqual(['points_agent']);
  });

  it('drops the clarification when the next message is a new request', async () => {
    await running.board.chat('how much cashback have I built up', { sessionId: 'clarify-6' });
    const parcels = running.agents.logistics.calls.length;
    const events = await running.board.chat('track my delivery please', { sessionId: 'clarify-6' });
    expect(running.agents.logistics.calls.length).toBe(parcels + 1);
    expect(finalEvent(events).metadata.clarification).toBeUndefined();
    // The dropped options no longer answer anything.
    const before = calls();
    const stale = await running.board.chat('', { sessionId: 'clarify-6', choose: 'opt_1' });
    expect(calls()).toEqual(before);
    expect(finalEvent(stale).content).toMatch(/no longer open/);
  });

  it('still answers a message near no agent out of scope, with no options', async () => {
    const events = await running.board.chat('tell me a joke about penguins', { sessionId: 'clarify-7' });
    expect(finalEvent(events).metadata.clarification).toBeUndefined();
    expect(doneOf(events).metadata.state?.outcome).toBe('completed');
  });
});

describe('the same clarification over AG-UI and A2A', () => {
  it('AG-UI: a CUSTOM event named clarification with the options; the run finishes input_required', async () => {
    const agent = new HttpAgent({ url: `${running.board.url}/v1/agui`, threadId: 'clarify-agui', initialMessages: [{ id: 'u-1', role: 'user', content: 'how much cashback have I built up' }] });
    const events: { type: string; [key: string]: unknown }[] = [];
    await agent.runAgent({ runId: 'run-clarify', forwardedProps: { user_id: 'ag-u1' } }, { onEvent: ({ event }) => void events.push(event as never) });
    const custom = events.find((event) => event.type === 'CUSTOM' && event.name === 'clarification');
    const options = (custom?.value as { options: { sub_agent_id: string }[] } | undefined)?.options ?? [];
    expect(options.map((option) => option.sub_agent_id)).toContain('points_agent');
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', result: { outcome: 'input_required' } });
  });

  it('A2A: input-required with a data part { clarification: { options } }', async () => {
    const client = await new ClientFactory().createFromUrl(running.board.url);
    const message = {
      messageId: 'clarify-a2a-1',
      contextId: 'clarify-a2a',
      taskId: '',
      role: Role.ROLE_USER,
      parts: [{ content: { $case: 'text' as const, value: 'how much cashback have I built up' }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    };
    const task = (await client.sendMessage({ tenant: '', message, configuration: undefined, metadata: undefined })) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const data = Object.assign({}, ...(task.status?.message?.parts ?? []).map((part) => (part.content?.$case === 'data' ? part.content.value : {}))) as { clarification?: { options: { sub_agent_id: string }[] } };
    expect(data.clarification?.options.map((option) => option.sub_agent_id)).toContain('points_agent');
  });
});
