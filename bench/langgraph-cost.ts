/**
 * What LangGraph itself costs per turn, apart from anything Switchboard does:
 * the same trivial nodes (each returns one changed channel) run as plain
 * async calls, as a `StateGraph` of 1 and 4 nodes (no checkpointer, then the
 * official SQLite checkpointer with `durability: 'exit'`, as a turn runs),
 * and through the functional API (`entrypoint` + 4 `task`s). Per invoke it
 * prints CPU time, `AsyncLocalStorage.run` calls and random-id draws
 * (`crypto.getRandomValues`, what run trees and task ids use), counted by
 * wrapping both in this process only.
 *
 * Run: `npx tsx bench/langgraph-cost.ts [invokes]` (default 2000 per row).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { webcrypto } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Annotation, END, START, StateGraph, entrypoint, task } from '@langchain/langgraph';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';

const counts = { alsRuns: 0, randomDraws: 0 };
const run = AsyncLocalStorage.prototype.run;
AsyncLocalStorage.prototype.run = function counted(this: AsyncLocalStorage<unknown>, ...args: Parameters<typeof run>) {
  counts.alsRuns += 1;
  return run.apply(this, args) as unknown;
} as typeof run;
const draw = webcrypto.getRandomValues.bind(webcrypto);
webcrypto.getRandomValues = ((array: Parameters<typeof draw>[0]) => {
  counts.randomDraws += 1;
  return draw(array);
}) as typeof webcrypto.getRandomValues;

const State = Annotation.Root({
  step: Annotation<number>({ reducer: (_previous, next) => next, default: () => 0 }),
  history: Annotation<string[]>({ reducer: (_previous, next) => next, default: () => [] }),
});
type Row = { name: string; cpuMs: number; alsRuns: number; randomDraws: number };

const HISTORY = Array.from({ length: 10 }, (_, index) => `turn ${index}: 帮我订北京的酒店，明天入住；北京明天晴。`);
const node = async (state: { step: number }) => ({ step: state.step + 1 });

function graphOf(nodes: number, checkpointer?: SqliteSaver) {
  const graph = new StateGraph(State);
  for (let index = 0; index < nodes; index++) graph.addNode(`n${index}`, node);
  const edges = graph as unknown as { addEdge(from: string, to: string): unknown };
  edges.addEdge(START, 'n0');
  for (let index = 1; index < nodes; index++) edges.addEdge(`n${index - 1}`, `n${index}`);
  edges.addEdge(`n${nodes - 1}`, END);
  return graph.compile({ checkpointer });
}

async function measure(name: string, invokes: number, once: (index: number) => Promise<unknown>): Promise<Row> {
  for (let index = 0; index < Math.min(200, invokes); index++) await once(index);
  const before = { ...counts };
  const cpu = process.cpuUsage();
  for (let index = 0; index < invokes; index++) await once(index);
  const used = process.cpuUsage(cpu);
  return {
    name,
    cpuMs: (used.user + used.system) / 1000 / invokes,
    alsRuns: (counts.alsRuns - before.alsRuns) / invokes,
    randomDraws: (counts.randomDraws - before.randomDraws) / invokes,
  };
}

export async function main(invokes = 2000): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-lg-cost-'));
  const saver = SqliteSaver.fromConnString(join(dir, 'checkpoints.db'));
  const rows: Row[] = [];
  try {
    rows.push(
      await measure('4 plain async calls', invokes, async () => {
        let state = { step: 0 };
        for (let index = 0; index < 4; index++) state = { ...state, ...(await node(state)) };
        return state;
      }),
    );
    for (const nodes of [1, 4]) {
      const graph = graphOf(nodes);
      rows.push(await measure(`StateGraph, ${nodes} node${nodes > 1 ? 's' : ''}, no checkpointer`, invokes, (index) => drain(graph.stream({ step: index, history: HISTORY }, { streamMode: 'custom' }))));
    }
    const saved = graphOf(4, saver);
    rows.push(
      await measure('StateGraph, 4 nodes, SQLite checkpointer (exit)', invokes, (index) =>
        drain(saved.stream({ step: index, history: HISTORY }, { configurable: { thread_id: `t${index % 50}` }, streamMode: 'custom', durability: 'exit' })),
      ),
    );
    const step = task('step', async (value: number) => value + 1);
    const functional = entrypoint({ name: 'turn' }, async (input: { step: number }) => {
      let value = input.step;
      for (let index = 0; index < 4; index++) value = await step(value);
      return { step: value };
    });
    rows.push(await measure('functional API, entrypoint + 4 tasks', invokes, (index) => functional.invoke({ step: index })));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const floor = rows[0]!.cpuMs;
  console.log(`LangGraph's own cost per invoke (${invokes} invokes per row; load average ${(await import('node:os')).loadavg()[0]!.toFixed(2)})`);
  console.log(`${'shape'.padEnd(50)}${'CPU ms'.padStart(9)}${'× plain'.padStart(9)}${'ALS runs'.padStart(10)}${'id draws'.padStart(10)}`);
  for (const row of rows) {
    console.log(`${row.name.padEnd(50)}${row.cpuMs.toFixed(3).padStart(9)}${(row.cpuMs / floor).toFixed(0).padStart(8)}×${row.alsRuns.toFixed(1).padStart(10)}${row.randomDraws.toFixed(1).padStart(10)}`);
  }
  return rows;
}

async function drain(stream: Promise<AsyncIterable<unknown>>): Promise<void> {
  for await (const _chunk of await stream) void _chunk;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await main(Number(process.argv[2] ?? 2000));
}
