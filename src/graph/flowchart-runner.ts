/**
 * Runs the supervisor's flowchart (`build-graph.ts`) by calling its steps in
 * turn: each step is an async function of the state, and the step after it
 * is what its router says. The session's state is read from the LangGraph
 * checkpointer at the start and written back once at the end, in the
 * checkpoint format LangGraph reads and writes, so the same sessions can be
 * run by LangGraph's own engine (`engine: 'langgraph'`) and back.
 *
 * Why not LangGraph's engine on every turn: it costs more CPU than all of a
 * turn's own work (`bench/langgraph-cost.ts`, decision 0030): per step a
 * run tree with fresh ids, configuration merges and environment reads,
 * though tracing is off, and no option turns them off. The flowchart has no
 * fan-out, no interrupts and one writer per channel (every channel replaces
 * its value), which is all this runner supports.
 *
 * Only the channels a later turn reads are saved (`kept`); LangGraph saves
 * every channel, which for this state is the turn's whole plan and results
 * written and read back on every turn for nothing.
 *
 * What it keeps of LangGraph's behaviour with `durability: 'exit'`: a turn
 * that ends (or fails) saves the state its last finished step left; an
 * aborted turn saves nothing; an abort stops the wait for the running step at
 * once; custom events (`config.writer`) reach the caller as they are written.
 */
import { randomBytes } from 'node:crypto';
import { v6 as uuidV6 } from '@langchain/core/utils/uuid';
import { emptyCheckpoint, type BaseCheckpointSaver, type LangGraphRunnableConfig } from '@langchain/langgraph';

/** The name a router returns to end the turn. */
export const FLOW_END = '__end__';

/** One step of the flowchart: what it does and where the turn goes after it. */
export interface FlowStep<State> {
  run(state: State, config: LangGraphRunnableConfig): Promise<Partial<State>>;
  /** The next step's name, or {@link FLOW_END}. */
  next(state: State, config: LangGraphRunnableConfig): string;
}

/** The flowchart: its first step and every step by name. */
export interface Flowchart<State> {
  first: string;
  steps: Readonly<Record<string, FlowStep<State>>>;
  /** The state of a session that has none saved yet (every channel's default). */
  initial(): State;
  /**
   * The channels a later turn reads, the only ones saved (default: all). The
   * rest is the turn's own work, reset at the start of every turn.
   */
  kept?: readonly (keyof State & string)[];
}

/** How a turn is run (the subset of LangGraph's `stream` options the turn runner passes). */
export interface FlowRunOptions {
  configurable: { thread_id: string };
  context?: unknown;
  signal?: AbortSignal;
  [option: string]: unknown;
}

/** A compiled flowchart: `stream` yields the turn's custom events, as LangGraph's `streamMode: 'custom'` does. */
export interface FlowchartRunner<State> {
  stream(input: Partial<State>, options: FlowRunOptions): Promise<AsyncIterable<unknown>>;
}

export function compileFlowchart<State extends object>(flowchart: Flowchart<State>, checkpointer?: BaseCheckpointSaver): FlowchartRunner<State> {
  const channels = Object.keys(flowchart.initial());
  const kept: readonly string[] = flowchart.kept ?? channels;
  return {
    async stream(input, options) {
      const threadConfig = { configurable: { thread_id: options.configurable.thread_id, checkpoint_ns: '' } };
      const saved = checkpointer ? await checkpointer.getTuple(threadConfig) : undefined;
      let state = { ...flowchart.initial(), ...savedChannels(saved?.checkpoint.channel_values, channels), ...input } as State;
      const events = createEventQueue();
      const signal = options.signal;
      const config = { ...options, configurable: threadConfig.configurable, writer: events.push } as LangGraphRunnableConfig;
      let steps = 0;
      const save = async () => {
        if (!checkpointer) return;
        const checkpoint = { ...CHECKPOINT_FIELDS, id: newCheckpointId(), ts: new Date().toISOString(), channel_values: {}, channel_versions: {}, versions_seen: {} };
        const versions: Record<string, number> = {};
        for (const channel of kept) {
          const previous = saved?.checkpoint.channel_versions[channel];
          versions[channel] = checkpointer.getNextVersion(typeof previous === 'number' ? previous : undefined) as number;
        }
        checkpoint.channel_values = Object.fromEntries(kept.map((channel) => [channel, state[channel as keyof State]]));
        checkpoint.channel_versions = versions;
        const parent = saved ? { configurable: { ...threadConfig.configurable, checkpoint_id: saved.checkpoint.id } } : threadConfig;
        const step = (typeof saved?.metadata?.step === 'number' ? saved.metadata.step : -1) + steps + 1;
        await checkpointer.put(parent, checkpoint, { source: 'loop', step, parents: {} }, versions);
      };
      const run = async () => {
        let name = flowchart.first;
        try {
          while (name !== FLOW_END) {
            signal?.throwIfAborted();
            const step = flowchart.steps[name];
            if (!step) throw new Error(`the flowchart has no step "${name}"`);
            const update = await untilAborted(step.run(state, config), signal);
            state = { ...state, ...update };
            steps += 1;
            name = step.next(state, config);
          }
        } catch (error) {
          // As LangGraph's `durability: 'exit'`: a failed turn keeps what its finished steps did, an aborted one nothing.
          if (!signal?.aborted) await save();
          throw error;
        }
        await save();
      };
      run().then(events.end, events.fail);
      return events.iterable;
    },
  };
}

/** The fields of an empty checkpoint as this LangGraph makes it (its format version among them); id and time are each save's own. */
const CHECKPOINT_FIELDS = emptyCheckpoint();

const idClock = { msecs: 0, nsecs: 0 };
const idRandom = { bytes: Buffer.alloc(0), offset: 0 };

/**
 * A new checkpoint's id as LangGraph's `uuid6(0)` makes it: a version 6 UUID
 * (time first, so a thread's newest checkpoint sorts last) with clock sequence
 * 0 and random node bytes, ids of one millisecond told apart by a count. The
 * random bytes are drawn from the system in blocks: LangGraph draws them with
 * `crypto.getRandomValues` for each id, which cost more than the rest of a
 * save's bookkeeping. The clock never goes back here (LangGraph's may, when
 * the system clock does).
 */
export function newCheckpointId(): string {
  const now = Date.now();
  if (now > idClock.msecs) {
    idClock.msecs = now;
    idClock.nsecs = 0;
  } else if (++idClock.nsecs >= 10_000) {
    idClock.msecs += 1;
    idClock.nsecs = 0;
  }
  if (idRandom.offset + 16 > idRandom.bytes.length) {
    idRandom.bytes = randomBytes(4096);
    idRandom.offset = 0;
  }
  const random = idRandom.bytes.subarray(idRandom.offset, (idRandom.offset += 16));
  return uuidV6({ clockseq: 0, msecs: idClock.msecs, nsecs: idClock.nsecs, random });
}

/** The channels of a saved checkpoint that the flowchart's state has. */
function savedChannels(values: Record<string, unknown> | undefined, channels: readonly string[]): Record<string, unknown> {
  if (!values) return {};
  const kept: Record<string, unknown> = {};
  for (const channel of channels) if (values[channel] !== undefined) kept[channel] = values[channel];
  return kept;
}

/** Resolves or rejects with `work`, or rejects as soon as `signal` aborts. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason ?? new Error('aborted'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Events written while the turn runs, read by one consumer as an async iterable. */
function createEventQueue() {
  const buffered: unknown[] = [];
  let finished = false;
  let failure: { error: unknown } | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  return {
    push: (event: unknown) => {
      buffered.push(event);
      notify();
    },
    end: () => {
      finished = true;
      notify();
    },
    fail: (error: unknown) => {
      failure = { error };
      finished = true;
      notify();
    },
    iterable: {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          if (buffered.length > 0) {
            yield* buffered.splice(0);
            continue;
          }
          if (finished) break;
          await new Promise<void>((resolve) => (wake = resolve));
        }
        if (failure) throw failure.error;
      },
    },
  };
}
