/**
 * Storage with personal data masked on the way in (docs/api.md#personal-data): the
 * transcript (query and answer), the stored events of a turn, the audit
 * records of sub-tasks and the checkpointed graph state (memory history,
 * queries, plans, results), so the database never holds a raw phone, ID,
 * card or e-mail. Remembered key values that hold personal data are dropped
 * from the checkpoint rather than masked (a masked phone must never be sent to
 * an agent as if it were real: the user is asked again instead). The parked
 * tasks of a session are masked too, their real personal values sealed
 * (`sealed-parked-tasks.ts`) and opened again when the checkpoint is read,
 * because sub-agents must receive the real values of the keys they declare
 * when those tasks finally run.
 */
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import type { PendingTask, Storage, StoredEvent } from '../store/index.js';
import { createDataSealer, type DataSealer } from './data-sealer.js';
import type { PiiMasker } from './pii-masker.js';
import { openPendingTask, sealPendingTask, type StoredPendingTask } from './sealed-parked-tasks.js';

/**
 * Wraps `storage` so every write is masked with `masker` and the real values
 * of parked tasks are sealed with `sealer` (default: a random key of this
 * process; the Switchboard passes the deployment's key). Reads return what was written, parked tasks opened again.
 */
export function maskStorage(storage: Storage, masker: PiiMasker, sealer: DataSealer = createDataSealer()): Storage {
  const transcript = storage.transcript;
  const events = storage.events;
  const tasks = storage.tasks;
  // A stored event's text is the event as sent, once: masked without being remembered.
  const maskEvent = (event: StoredEvent): StoredEvent => ({ ...event, data: (masker.maskFresh ?? masker.mask)(event.data) });
  return Object.assign(Object.create(Object.getPrototypeOf(storage) as object) as Storage, storage, {
    transcript: bindAll(transcript, {
      // The session's lease names the session as its lease store does (unmasked), or it would be another lease.
      beginTurn: ({ lease, ...start }: Parameters<typeof transcript.beginTurn>[0]) => transcript.beginTurn({ ...masker.maskDeep(start), ...(lease ? { lease } : {}) }),
      finishTurn: (turnId: string, { releaseLease, events: lastEvents, ...finish }: Parameters<typeof transcript.finishTurn>[1]) =>
        transcript.finishTurn(turnId, {
          ...masker.maskDeep(finish),
          ...(lastEvents ? { events: lastEvents.map(maskEvent) } : {}),
          ...(releaseLease ? { releaseLease } : {}),
        }),
    }),
    events: bindAll(events, {
      appendEvents: (turnId: string, stored: Parameters<typeof events.appendEvents>[1]) =>
        events.appendEvents(turnId, stored.map(maskEvent)),
    }),
    tasks: bindAll(tasks, {
      recordDispatch: (task: Parameters<typeof tasks.recordDispatch>[0]) => tasks.recordDispatch(masker.maskDeep(task)),
      updateTask: (taskId: string, status: Parameters<typeof tasks.updateTask>[1], detail?: string) =>
        tasks.updateTask(taskId, status, detail === undefined ? undefined : masker.mask(detail)),
    }),
    checkpointer: maskCheckpointer(storage.checkpointer, masker, sealer),
    pruneCheckpoints: (threadId: string) => storage.pruneCheckpoints(threadId),
    deleteOlderThan: (cutoff: Date) => storage.deleteOlderThan(cutoff),
    close: () => storage.close(),
  });
}

/** An object whose methods are the target's (bound), with some replaced. */
function bindAll<T extends object>(target: T, overrides: Partial<Record<keyof T, unknown>>): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      if (Object.prototype.hasOwnProperty.call(overrides, property)) return overrides[property as keyof T];
      const value: unknown = Reflect.get(object, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(object) : value;
    },
  });
}

function maskChannelValues(values: Record<string, unknown>, masker: PiiMasker, sealer: DataSealer): Record<string, unknown> {
  const masked: Record<string, unknown> = {};
  for (const [channel, value] of Object.entries(values)) {
    masked[channel] = channel === 'memory' ? maskMemory(value, masker, sealer) : masker.maskDeep(value);
  }
  return masked;
}

function maskMemory(value: unknown, masker: PiiMasker, sealer: DataSealer): unknown {
  if (value === null || typeof value !== 'object') return masker.maskDeep(value);
  const memory = value as Record<string, unknown>;
  const known = memory.known_values;
  const safeKnown =
    known !== null && typeof known === 'object'
      ? Object.fromEntries(Object.entries(known).filter(([, item]) => JSON.stringify(masker.maskDeep(item)) === JSON.stringify(item)))
      : known;
  const pending = Array.isArray(memory.pending) ? { pending: (memory.pending as PendingTask[]).map((task) => sealPendingTask(task, masker, sealer)) } : {};
  return { ...masker.maskDeep(memory), ...pending, ...(known === undefined ? {} : { known_values: safeKnown }) };
}

/** The memory channel as read back: parked tasks opened. */
function openMemory(value: unknown, sealer: DataSealer): unknown {
  if (value === null || typeof value !== 'object') return value;
  const memory = value as Record<string, unknown>;
  if (!Array.isArray(memory.pending)) return value;
  return { ...memory, pending: (memory.pending as StoredPendingTask[]).map((task) => openPendingTask(task, sealer)) };
}

type CheckpointTuple = NonNullable<Awaited<ReturnType<BaseCheckpointSaver['getTuple']>>>;

function openTuple(tuple: CheckpointTuple, sealer: DataSealer): CheckpointTuple {
  const values = tuple.checkpoint.channel_values;
  return {
    ...tuple,
    checkpoint: { ...tuple.checkpoint, channel_values: 'memory' in values ? { ...values, memory: openMemory(values.memory, sealer) } : values },
    ...(tuple.pendingWrites
      ? { pendingWrites: tuple.pendingWrites.map(([taskId, channel, value]) => [taskId, channel, channel === 'memory' ? openMemory(value, sealer) : value] as [string, string, unknown]) }
      : {}),
  };
}

function maskCheckpointer(inner: BaseCheckpointSaver, masker: PiiMasker, sealer: DataSealer): BaseCheckpointSaver {
  return bindAll(inner, {
    put: (config: Parameters<BaseCheckpointSaver['put']>[0], checkpoint: Parameters<BaseCheckpointSaver['put']>[1], metadata: Parameters<BaseCheckpointSaver['put']>[2], versions: Parameters<BaseCheckpointSaver['put']>[3]) =>
      inner.put(config, { ...checkpoint, channel_values: maskChannelValues(checkpoint.channel_values, masker, sealer) }, masker.maskDeep(metadata), versions),
    putWrites: (config: Parameters<BaseCheckpointSaver['putWrites']>[0], writes: Parameters<BaseCheckpointSaver['putWrites']>[1], taskId: string) =>
      inner.putWrites(
        config,
        writes.map(([channel, value]) => [channel, channel === 'memory' ? maskMemory(value, masker, sealer) : masker.maskDeep(value)] as [string, unknown]),
        taskId,
      ),
    getTuple: async (config: Parameters<BaseCheckpointSaver['getTuple']>[0]) => {
      const tuple = await inner.getTuple(config);
      return tuple ? openTuple(tuple, sealer) : tuple;
    },
    list: async function* (config: Parameters<BaseCheckpointSaver['list']>[0], options?: Parameters<BaseCheckpointSaver['list']>[1]) {
      for await (const tuple of inner.list(config, options)) yield openTuple(tuple, sealer);
    },
  });
}
