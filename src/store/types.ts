/**
 * The storage contract: everything a turn needs from durable or shared state,
 * as interfaces. SQLite (embedded default), Postgres, and Postgres + Redis
 * implement them; one contract suite (test/store/storage-contract.ts) runs
 * against every backend. Only `src/store/` touches SQL or Redis.
 *
 * Rules every implementation keeps:
 * - reads return copies (mutating a result never changes stored state);
 * - writes a retry can repeat are idempotent (keyed by turn id, task id,
 *   (turn id, seq) or the lease holder);
 * - times that decide expiry (leases, key TTLs) come from the backend's own
 *   clock where it has one, so replicas with skewed clocks agree;
 * - a `userId` given to or returned by storage is an owner key: the user id
 *   within its tenant (`owner-key.ts`), never compared across tenants.
 */
import type { RateLimiterFactory } from './rate-limiter.js';
import type { BaseCheckpointSaver } from '@langchain/langgraph';

/** One row of the append-only transcript. */
export interface StoredMessage {
  seq: number;
  role: 'user' | 'assistant';
  content: string;
  created_at: string;
  /** The turn this row belongs to (absent on rows written before turns had ids). */
  turn_id?: string;
  metadata?: Record<string, unknown>;
}

/** How a turn ended. `interrupted`: its process died mid-turn (found by the next turn). */
export type TurnOutcome = 'completed' | 'error' | 'aborted' | 'cancelled' | 'interrupted';

/** A turn's status: `running` until its answer row is written. */
export type TurnStatus = 'running' | TurnOutcome;

/** One turn of a session (the write-ahead record). */
export interface TurnRecord {
  turn_id: string;
  user_id: string;
  session_id: string;
  status: TurnStatus;
  trace_id: string;
  started_at: string;
  finished_at?: string;
}

/** What `beginTurn` writes before the graph runs. */
export interface TurnStart {
  turnId: string;
  userId: string;
  sessionId: string;
  query: string;
  traceId: string;
  createdAt: string;
  metadata?: Record<string, unknown>;
}

/** What `finishTurn` writes when the turn ends. */
export interface TurnFinish {
  content: string;
  outcome: Exclude<TurnOutcome, 'interrupted'>;
  createdAt: string;
  metadata?: Record<string, unknown>;
  /** The turn's last events (as `TurnEventStore.appendEvents` takes them), stored in the same write. */
  events?: readonly StoredEvent[];
}

/** Who may read a session: its owner, only other users of the same tenant, or nobody (in this tenant) has it. */
export type SessionAccess = 'owner' | 'other' | 'none';

/** The read side of the transcript (what the HTTP routes need). */
export interface TranscriptReader {
  /**
   * Whether `userId` has a session with this id (`owner`), only other users of
   * the same tenant do (`other`), or nobody does (`none`; another tenant's
   * session with the same id is invisible). Session ids are namespaced per owner.
   */
  sessionAccess(userId: string, sessionId: string): Promise<SessionAccess>;
  /** The session's transcript in order (copies). */
  listMessages(userId: string, sessionId: string): Promise<StoredMessage[]>;
}

/**
 * Sessions and the append-only transcript, written ahead: the user's row is
 * committed before the graph runs, the answer row when the turn ends.
 */
export interface TranscriptStore extends TranscriptReader {
  /**
   * Records the turn as running and appends the user's row, in one atomic
   * write. Any other turn of the session still marked running is closed as
   * `interrupted` (an empty answer row with `metadata.outcome: "interrupted"`)
   * and its id returned: the caller holds the session's lease, so such a turn
   * belonged to a holder that died. Repeating the call for the same turn id
   * changes nothing.
   */
  beginTurn(start: TurnStart): Promise<{ interrupted: string[] }>;
  /**
   * Appends the answer row and sets the outcome, atomically. Only a running
   * turn can finish: returns false (and writes nothing) when the turn is
   * unknown or already closed, so a retry never doubles the answer.
   */
  finishTurn(turnId: string, finish: TurnFinish): Promise<boolean>;
  getTurn(turnId: string): Promise<TurnRecord | undefined>;
  /** The session's most recently started turn. */
  latestTurn(userId: string, sessionId: string): Promise<TurnRecord | undefined>;
  /** Turns still marked running that started before `startedBefore` (ISO time), oldest first, at most `limit`. */
  runningTurns(startedBefore: string, limit: number): Promise<TurnRecord[]>;
  /**
   * Closes a running turn whose process died as `interrupted` (the empty
   * answer row `beginTurn` writes for such a turn); false when it was no
   * longer running.
   */
  interruptTurn(turnId: string, at: string): Promise<boolean>;
}

/** One event of a turn, exactly as it was sent (JSON text). */
export interface StoredEvent {
  seq: number;
  /** The serialised event, byte for byte what the client received. */
  data: string;
}

/** The events of each turn, kept for resume (at least an hour; retention deletes them). */
export interface TurnEventStore {
  /** Appends events; an existing (turn id, seq) is kept as it was (idempotent). */
  appendEvents(turnId: string, events: readonly StoredEvent[]): Promise<void>;
  /** Events of the turn with seq > `afterSeq`, in order. */
  listEvents(turnId: string, afterSeq?: number): Promise<StoredEvent[]>;
}

/** Status of a dispatched sub-task. */
export type TaskStatus = 'dispatched' | 'completed' | 'failed' | 'input_required' | 'cancelled';

/** A sub-task sent to an agent, recorded before it is sent. */
export interface TaskRecord {
  task_id: string;
  turn_id: string;
  user_id: string;
  session_id: string;
  agent_id: string;
  /** Inputs with personal data masked. */
  inputs: Record<string, unknown>;
  status: TaskStatus;
  /** Number of times it was handed to the agent client. */
  dispatches: number;
  detail?: string;
  created_at: string;
  updated_at: string;
}

/** The audit trail of dispatched sub-tasks. */
export interface TaskStore {
  /**
   * Records a dispatch before the request leaves. The same task id again
   * (a retry) keeps the first record and counts the dispatch.
   */
  recordDispatch(task: Omit<TaskRecord, 'status' | 'dispatches' | 'updated_at' | 'detail'>): Promise<void>;
  /** Sets the outcome of a recorded task; unknown ids are ignored. */
  updateTask(taskId: string, status: TaskStatus, detail?: string): Promise<void>;
  getTask(taskId: string): Promise<TaskRecord | undefined>;
  listTasks(turnId: string): Promise<TaskRecord[]>;
}

/**
 * A per-key lease with a time to live: one holder at a time; a holder that
 * dies stops renewing and the lease frees itself when the TTL runs out.
 */
export interface LeaseStore {
  /** Takes the lease when free or expired (or already ours: then it is renewed). */
  acquire(key: string, holder: string, ttlMs: number): Promise<boolean>;
  /** Extends our lease; false when it is no longer ours (expired and taken). */
  renew(key: string, holder: string, ttlMs: number): Promise<boolean>;
  /** Frees the lease if we hold it. */
  release(key: string, holder: string): Promise<void>;
  /** The live holder, if any. */
  holder(key: string): Promise<string | undefined>;
}

/**
 * Cross-replica signals: cancel a turn running elsewhere, wake an enqueued
 * turn, tell resume followers a turn has new events. Delivery is at most once
 * and only to subscribers present at publish time; callers that must not miss
 * one re-check stored state after subscribing.
 */
export interface SignalBus {
  publish(channel: string, message: string): Promise<void>;
  /** Resolves once the subscription is live; returns the unsubscribe function. */
  subscribe(channel: string, handler: (message: string) => void): Promise<() => Promise<void>>;
}

/** Values a key-value store holds: anything JSON can hold. */
export type KeyValue = null | boolean | number | string | KeyValue[] | { [key: string]: KeyValue };

/**
 * JSON values with a time to live (idempotency keys, caches), shared by every
 * replica of the backend. Reads return copies.
 */
export interface KeyValueStore {
  /** The live value under `key`, or undefined when absent or expired. */
  get(key: string): Promise<KeyValue | undefined>;
  set(key: string, value: KeyValue, ttlMs: number): Promise<void>;
  /** Sets only when the key is absent or expired; true when this call set it. */
  setIfAbsent(key: string, value: KeyValue, ttlMs: number): Promise<boolean>;
  delete(key: string): Promise<void>;
}

/** One long-term fact about a user (docs/api.md#environment memory layers), e.g. `city = 上海`. */
export interface ProfileFact {
  key: string;
  value: string | number;
  /** Turns in a row (on this value) that gave it; a different value starts again at 1. */
  hits: number;
  /** Where it was last seen. */
  source: { session_id: string; turn_id?: string };
  /** When this value was first seen (ISO). */
  first_seen: string;
  /** When it was last seen (ISO). */
  updated_at: string;
}

/** One piece of evidence from a completed turn. */
export interface ProfileEvidence {
  key: string;
  value: string | number;
  session_id: string;
  turn_id?: string;
  /** ISO time of the turn. */
  at: string;
}

/** Per-user long-term facts, across sessions. */
export interface ProfileStore {
  /** The user's facts, by key (copies). */
  get(userId: string): Promise<ProfileFact[]>;
  /**
   * Records evidence atomically per key: the same value again raises `hits`;
   * a different value replaces it (newer evidence wins) with `hits` 1.
   */
  record(userId: string, evidence: readonly ProfileEvidence[]): Promise<void>;
  /** Deletes every fact of the user. */
  delete(userId: string): Promise<void>;
}

/** What retention removed. */
export interface RetentionResult {
  turns: number;
  messages: number;
  events: number;
  tasks: number;
}

/**
 * One task of Switchboard's own A2A server (`POST /a2a`), kept in storage so
 * that any replica serves GetTask / CancelTask / ListTasks / resubscribe.
 */
export interface A2aTaskRow {
  task_id: string;
  /** Whose it is (the caller scope the A2A route derives from the API key); another owner never sees it. */
  owner: string;
  context_id: string;
  /** The task's state as its JSON names it (`TASK_STATE_WORKING`, ...). */
  state: string;
  /** The whole task as A2A v1.0 JSON (status, history, artifacts). */
  body: string;
  /** ISO time of the last change (the status timestamp): the list order. */
  updated_at: string;
}

/** What `A2aTaskRows.list` returns: newest change first, then by task id (descending). */
export interface A2aTaskQuery {
  contextId?: string;
  state?: string;
  /** Only rows changed after this ISO time. */
  updatedAfter?: string;
  limit: number;
  /** Only rows after this one in the list order (cursor paging). */
  after?: { updated_at: string; task_id: string };
}

/** The A2A server's tasks, per owner. */
export interface A2aTaskRows {
  /** Writes the row (insert or replace the owner's task of that id). */
  save(row: A2aTaskRow): Promise<void>;
  /** The owner's task, or undefined (also for another owner's task). */
  get(owner: string, taskId: string): Promise<A2aTaskRow | undefined>;
  list(owner: string, query: A2aTaskQuery): Promise<A2aTaskRow[]>;
  /** How many rows `list` would return without `limit` and `after`. */
  count(owner: string, query: Omit<A2aTaskQuery, 'limit' | 'after'>): Promise<number>;
}

/** Everything a supervisor needs from storage, for one backend. */
export interface Storage {
  /** `sqlite`, `postgres` or `postgres+redis`. */
  readonly kind: string;
  readonly transcript: TranscriptStore;
  readonly events: TurnEventStore;
  readonly tasks: TaskStore;
  readonly leases: LeaseStore;
  readonly signals: SignalBus;
  readonly kv: KeyValueStore;
  readonly checkpointer: BaseCheckpointSaver;
  /** Drops all checkpoints of a thread but the newest (keeps storage bounded). */
  pruneCheckpoints(threadId: string): Promise<void>;
  /**
   * Deletes finished turns that started before `cutoff`, with their
   * transcript rows, events and task records; sessions left empty go too.
   */
  deleteOlderThan(cutoff: Date): Promise<RetentionResult>;
  readonly profiles: ProfileStore;
  /** Tasks of the A2A server (shared by the replicas of one backend). */
  readonly a2aTasks: A2aTaskRows;
  /**
   * Right to be forgotten: deletes the user's profile and every session of the
   * user (transcript, turns, events, task records, checkpoints). Returns the
   * number of sessions deleted.
   */
  forgetUser(userId: string): Promise<{ sessions: number }>;
  /** Rate-limit counters, shared as far as this backend reaches (across replicas with Redis). */
  readonly createRateLimiter: RateLimiterFactory;
  close(): Promise<void>;
}
