/**
 * The audit trail of a turn's sub-tasks: each is recorded before its request
 * leaves (a failed write means it is not sent) and its outcome after. Task
 * records keep inputs with every personal value masked, whatever the key's
 * type (docs/api.md#personal-data); the agent itself is sent the real values.
 */
import type { Logger } from '../logger.js';
import type { RegistrySnapshot } from '../registry/index.js';
import { maskForSnapshot, type PiiMasker } from '../privacy/index.js';
import type { TaskRecorder } from '../graph/index.js';
import type { TurnStorage } from './runner-options.js';

/** Which turn a recorder writes for. */
export interface RecordedTurn {
  turnId: string;
  owner: string;
  sessionId: string;
  traceId: string;
}

/** Makes a turn's task recorder; the maskers are kept per snapshot across turns. */
export function createTaskRecords(storage: Pick<TurnStorage, 'tasks'>, logger: Logger): (turn: RecordedTurn, snapshot: RegistrySnapshot) => TaskRecorder {
  const maskers = new WeakMap<RegistrySnapshot, PiiMasker>();
  const maskInputs = (snapshot: RegistrySnapshot, inputs: Record<string, unknown>): Record<string, unknown> => {
    let masker = maskers.get(snapshot);
    if (!masker) {
      masker = maskForSnapshot(snapshot);
      maskers.set(snapshot, masker);
    }
    return masker.maskDeep(inputs);
  };
  return (turn, snapshot) => {
    const settling: Promise<void>[] = [];
    return {
      async dispatched(task) {
        await storage.tasks.recordDispatch({
          task_id: task.task_id,
          turn_id: turn.turnId,
          user_id: turn.owner,
          session_id: turn.sessionId,
          agent_id: task.agent_id,
          inputs: maskInputs(snapshot, task.inputs),
          created_at: new Date().toISOString(),
        });
      },
      settled(taskId, status, detail) {
        settling.push(
          storage.tasks.updateTask(taskId, status, detail).catch((error: unknown) => logger.warn({ err: error, traceId: turn.traceId, task: taskId }, 'recording a task outcome failed')),
        );
      },
    };
  };
}
