/**
 * Storage with personal data masked on the way in (CONTRACT §7): the
 * transcript (query and answer), the stored events of a turn, the audit
 * records of sub-tasks and the checkpointed graph state (memory history,
 * queries, plans, results), so the database never holds a raw phone, ID,
 * card or e-mail. Remembered key values that hold personal data are dropped
 * from the checkpoint rather than masked (a masked phone must never be sent to
 * an agent as if it were real: the user is asked again instead). Kept raw on
 * purpose, in the checkpoint only: the inputs of a session's parked tasks,
 * because sub-agents must receive the real values of the keys they declare
 * when those tasks finally run.
 */
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import type { Storage } from '../store/types.js';
import type { PiiMasker } from './pii-masker.js';

/** Fields of the graph state kept raw in checkpoints (see the file header). */
const RAW_MEMORY_FIELDS = ['pending'] as const;

/** Wraps `storage` so every write is masked with `masker`. Reads return what was written. */
export function maskStorage(storage: Storage, masker: PiiMasker): Storage {
  const transcript = storage.transcript;
  const events = storage.events;
  const tasks = storage.tasks;
  return Object.assign(Object.create(Object.getPrototypeOf(storage) as object) as Storage, storage, {
    transcript: bindAll(transcript, {
      beginTurn: (start: Parameters<typeof transcript.beginTurn>[0]) => transcript.beginTurn(masker.maskDeep(start)),
      finishTurn: (turnId: string, finish: Parameters<typeof transcript.finishTurn>[1]) => transcript.finishTurn(turnId, masker.maskDeep(finish)),
    }),
    events: bindAll(events, {
      appendEvents: (turnId: string, stored: Parameters<typeof events.appendEvents>[1]) =>
        events.appendEvents(turnId, stored.map((event) => ({ ...event, data: masker.mask(event.data) }))),
    }),
    tasks: bindAll(tasks, {
      recordDispatch: (task: Parameters<typeof tasks.recordDispatch>[0]) => tasks.recordDispatch(masker.maskDeep(task)),
      updateTask: (taskId: string, status: Parameters<typeof tasks.updateTask>[1], detail?: string) =>
        tasks.updateTask(taskId, status, detail === undefined ? undefined : masker.mask(detail)),
    }),
    checkpointer: maskCheckpointer(storage.checkpointer, masker),
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

function maskChannelValues(values: Record<string, unknown>, masker: PiiMasker): Record<string, unknown> {
  const masked: Record<string, unknown> = {};
  for (const [channel, value] of Object.entries(values)) {
    if (channel === 'memory' && value !== null && typeof value === 'object') {
      const memory = value as Record<string, unknown>;
      const kept = Object.fromEntries(RAW_MEMORY_FIELDS.filter((field) => field in memory).map((field) => [field, memory[field]]));
      const known = memory.known_values;
      const safeKnown =
        known !== null && typeof known === 'object'
          ? Object.fromEntries(Object.entries(known).filter(([, item]) => JSON.stringify(masker.maskDeep(item)) === JSON.stringify(item)))
          : known;
      masked[channel] = { ...masker.maskDeep(memory), ...kept, ...(known === undefined ? {} : { known_values: safeKnown }) };
    } else {
      masked[channel] = masker.maskDeep(value);
    }
  }
  return masked;
}

function maskCheckpointer(inner: BaseCheckpointSaver, masker: PiiMasker): BaseCheckpointSaver {
  return bindAll(inner, {
    put: (config: Parameters<BaseCheckpointSaver['put']>[0], checkpoint: Parameters<BaseCheckpointSaver['put']>[1], metadata: Parameters<BaseCheckpointSaver['put']>[2], versions: Parameters<BaseCheckpointSaver['put']>[3]) =>
      inner.put(config, { ...checkpoint, channel_values: maskChannelValues(checkpoint.channel_values, masker) }, masker.maskDeep(metadata), versions),
    putWrites: (config: Parameters<BaseCheckpointSaver['putWrites']>[0], writes: Parameters<BaseCheckpointSaver['putWrites']>[1], taskId: string) =>
      inner.putWrites(
        config,
        writes.map(([channel, value]) => [channel, channel === 'memory' ? maskChannelValues({ memory: value }, masker).memory : masker.maskDeep(value)] as [string, unknown]),
        taskId,
      ),
  });
}
