/**
 * The A2A server's tasks in storage (CONTRACT §3 "A2A, v4 readings": tasks,
 * their history and their subscriptions are served from any replica).
 *
 * - `StoredA2aTasks` is the SDK's `TaskStore` over the storage contract's
 *   `a2aTasks` rows (SQLite or Postgres): each task is kept as its A2A v1.0
 *   JSON, per owner (the caller scope of the route), so `GetTask`, `ListTasks`
 *   and a follow-up message work on whichever replica they reach.
 * - `ReplicaEventBusManager` gives the SDK the local bus of a task this
 *   replica runs; for any other task it gives a `StoredTaskFollower`, a bus
 *   that follows the stored task (polling its row) and publishes each change
 *   as a status or artifact update. So `SubscribeToTask` (v0.3
 *   `tasks/resubscribe`) on replica B streams a turn running on replica A,
 *   and `CancelTask` on B reaches the turn through the executor (which asks
 *   the turn feed to cancel it wherever it runs) and waits on the same bus.
 */
import { Task, TaskState, taskStateToJSON, type ListTasksRequest, type ListTasksResponse } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultExecutionEventBus,
  DefaultExecutionEventBusManager,
  type EventListener,
  type ExecutionEventBus,
  type ExecutionEventBusManager,
  type ExecutionEventName,
  type FinishedListener,
  type ServerCallContext,
  type TaskStore,
} from '@a2a-js/sdk/server';
import type { A2aTaskRows } from '../store/index.js';

/** The owner scope of a call (the same function scopes the SDK's buses). */
export type OwnerOf = (context: ServerCallContext) => string;

const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 100;

function pageToken(updatedAt: string, taskId: string): string {
  return Buffer.from(JSON.stringify([updatedAt, taskId])).toString('base64url');
}

function readPageToken(token: string): { updated_at: string; task_id: string } | undefined {
  try {
    const value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && value.length === 2 && value.every((part) => typeof part === 'string')) return { updated_at: value[0] as string, task_id: value[1] as string };
  } catch {
    // not ours: an empty page below
  }
  return undefined;
}

/** The SDK's task store over the storage contract's A2A task rows. */
export class StoredA2aTasks implements TaskStore {
  constructor(
    private readonly rows: A2aTaskRows,
    private readonly ownerOf: OwnerOf,
  ) {}

  async save(task: Task, context: ServerCallContext): Promise<void> {
    await this.rows.save({
      owner: this.ownerOf(context),
      task_id: task.id,
      context_id: task.contextId,
      state: taskStateToJSON(task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED),
      body: JSON.stringify(Task.toJSON(task)),
      updated_at: task.status?.timestamp ?? new Date().toISOString(),
    });
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const row = await this.rows.get(this.ownerOf(context), taskId);
    return row ? Task.fromJSON(JSON.parse(row.body)) : undefined;
  }

  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const owner = this.ownerOf(context);
    const pageSize = Math.min(Math.max(1, params.pageSize ?? DEFAULT_PAGE_SIZE), MAX_PAGE_SIZE);
    const filter = {
      contextId: params.contextId || undefined,
      state: params.status ? taskStateToJSON(params.status) : undefined,
      updatedAfter: params.statusTimestampAfter || undefined,
    };
    const after = params.pageToken ? readPageToken(params.pageToken) : undefined;
    if (params.pageToken && !after) return { tasks: [], nextPageToken: '', pageSize, totalSize: await this.rows.count(owner, filter) };
    const rows = await this.rows.list(owner, { ...filter, after, limit: pageSize + 1 });
    const page = rows.slice(0, pageSize);
    const last = page.at(-1);
    return {
      tasks: page.map((row) => {
        const task = Task.fromJSON(JSON.parse(row.body));
        return params.includeArtifacts ? task : { ...task, artifacts: [] };
      }),
      nextPageToken: rows.length > pageSize && last ? pageToken(last.updated_at, last.task_id) : '',
      pageSize,
      totalSize: await this.rows.count(owner, filter),
    };
  }
}

const TERMINAL = new Set([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED]);

/**
 * A bus for a task this replica does not run: while someone listens, it reads
 * the stored task every `pollMs` and publishes what changed (status, then
 * artifacts); it finishes at a terminal state, when the task is gone, or after
 * `maxFollowMs`. `read()` gives the stored task now (for the executor's cancel).
 */
export class StoredTaskFollower extends DefaultExecutionEventBus {
  private task: Task | undefined;
  private listeners = 0;
  private timer: NodeJS.Timeout | undefined;
  private last: { status: string; artifacts: Map<string, string> } | undefined;
  private readonly started = Date.now();
  private stopped = false;

  constructor(
    readonly taskId: string,
    readonly context: ServerCallContext,
    private readonly load: () => Promise<Task | undefined>,
    private readonly pollMs: number,
    private readonly maxFollowMs: number,
  ) {
    super();
  }

  /** The stored task as it is now. */
  read(): Promise<Task | undefined> {
    return this.load();
  }

  override on(eventName: 'event', listener: EventListener): this;
  override on(eventName: 'finished', listener: FinishedListener): this;
  override on(eventName: ExecutionEventName, listener: EventListener | FinishedListener): this {
    super.on(eventName as 'event', listener as EventListener);
    if (eventName === 'event' && ++this.listeners === 1) this.schedule(0);
    return this;
  }

  override off(eventName: 'event', listener: EventListener): this;
  override off(eventName: 'finished', listener: FinishedListener): this;
  override off(eventName: ExecutionEventName, listener: EventListener | FinishedListener): this {
    super.off(eventName as 'event', listener as EventListener);
    if (eventName === 'event' && --this.listeners <= 0) this.stop();
    return this;
  }

  override finished(): void {
    this.stop();
    super.finished();
  }

  private stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.poll(), delayMs);
    this.timer.unref?.();
  }

  private async poll(): Promise<void> {
    let task: Task | undefined;
    try {
      task = await this.load();
    } catch {
      task = this.task; // a failed read: try again next time
    }
    if (this.stopped) return;
    if (!task) {
      this.finished();
      return;
    }
    const status = JSON.stringify(task.status ?? null);
    const artifacts = new Map(task.artifacts.map((artifact) => [artifact.artifactId, JSON.stringify(artifact)]));
    if (!this.last) {
      // The state at subscription time is the caller's baseline (the SDK sends it as the first Task).
      this.task = task;
      this.last = { status, artifacts };
    } else {
      for (const artifact of task.artifacts) {
        if (this.last.artifacts.get(artifact.artifactId) === artifacts.get(artifact.artifactId)) continue;
        this.publish(AgentEvent.artifactUpdate({ taskId: task.id, contextId: task.contextId, artifact, append: false, lastChunk: true, metadata: undefined }));
      }
      if (status !== this.last.status && task.status) {
        this.publish(AgentEvent.statusUpdate({ taskId: task.id, contextId: task.contextId, status: task.status, metadata: undefined }));
      }
      this.last = { status, artifacts };
    }
    if ((task.status && TERMINAL.has(task.status.state)) || Date.now() - this.started > this.maxFollowMs) {
      this.finished();
      return;
    }
    this.schedule(this.pollMs);
  }
}

/** Local buses for the tasks this replica runs, stored-task followers for the others. */
export class ReplicaEventBusManager implements ExecutionEventBusManager {
  private readonly local: DefaultExecutionEventBusManager;

  constructor(
    ownerOf: OwnerOf,
    private readonly store: TaskStore,
    private readonly options: { pollMs?: number; maxFollowMs?: number } = {},
  ) {
    this.local = new DefaultExecutionEventBusManager(ownerOf);
  }

  createOrGetByTaskId(taskId: string, context?: ServerCallContext): ExecutionEventBus {
    return this.local.createOrGetByTaskId(taskId, context);
  }

  getByTaskId(taskId: string, context?: ServerCallContext): ExecutionEventBus | undefined {
    const bus = this.local.getByTaskId(taskId, context);
    if (bus || !context) return bus;
    return new StoredTaskFollower(taskId, context, () => this.store.load(taskId, context), this.options.pollMs ?? 200, this.options.maxFollowMs ?? 15 * 60_000);
  }

  cleanupByTaskId(taskId: string, context?: ServerCallContext): void {
    this.local.cleanupByTaskId(taskId, context);
  }
}
