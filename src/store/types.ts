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
  /**
   * The session's lease, taken in the same write (only where `LeaseStore.withTranscript`):
   * when another holder has it nothing is written and `beginTurn` says `leaseTaken: false`.
   */
  lease?: LeaseClaim;
}

/** A lease a turn's start takes (`ttlMs`) or its finish lets go of. */
export interface LeaseClaim {
  key: string;
  holder: string;
  ttlMs: number;
}

/** What `finishTurn` writes when the turn ends. */
export interface TurnFinish {
  content: string;
  outcome: Exclude<TurnOutcome, 'interrupted'>;
  createdAt: string;
  metadata?: Record<string, unknown>;
  /** The turn's last events (as `TurnEventStore.appendEvents` takes them), stored in the same write. */
  events?: readonly StoredEvent[];
  /** The turn's record for `GET /v1/turns` and the console, stored in the same write (personal data masked). */
  record?: StoredTurnRecord;
  /** The session's lease, let go of in the same write whatever it returns (only where `LeaseStore.withTranscript`). */
  releaseLease?: Omit<LeaseClaim, 'ttlMs'>;
}

/** One agent's sub-agent calls in a turn (`TurnUsage.by_agent`). */
export interface AgentUsage {
  calls: number;
  failures: number;
  /** Wall time of its calls, retries included, summed. */
  ms: number;
}

/**
 * What one turn cost (contract v4 "Usage"; `done.metadata.state.usage`): model calls with the tokens the
 * endpoint reported (0 offline), and sub-agent calls with their failures and time, by agent id.
 */
export interface TurnUsage {
  model_calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  agent_calls: number;
  by_agent: Record<string, AgentUsage>;
}

/**
 * Where one input value came from, as a turn record keeps it: a value source
 * (`parked-task.ts`); a `user` one with the id of the turn whose words hold it
 * when known (`turn_id`) and those words (`words`, masked like the transcript).
 */
export type RecordedValueSource =
  | { kind: 'user'; turn: number; start: number; end: number; turn_id?: string; words?: string }
  | { kind: 'profile'; key: string }
  | { kind: 'upstream'; task_id: string };

/** One input value of a planned task or a call, with its source (absent: the value had none and was not sent). */
export interface RecordedInput {
  key: string;
  value: unknown;
  source?: RecordedValueSource;
}

/** A stage of a turn as the waterfall draws it: offsets in ms from the turn's start. */
export interface RecordedStage {
  /** `intent`, `plan`, `execute`, `verify`, `answer`, `escalate`. */
  stage: string;
  start_ms: number;
  end_ms: number;
}

/** One task of the turn's plan. */
export interface RecordedTask {
  task_id: string;
  agent_id: string;
  /** The task's own words (its clause of the message). */
  description: string;
  dependencies: string[];
  /** Its status when the plan was made (`pending`, `parked`, `awaiting_confirmation`, `failed`). */
  status: string;
  inputs: RecordedInput[];
}

/** One sub-agent call (or a reply served from the response cache, `cached`). */
export interface RecordedCall {
  /** The plan task it ran. */
  task_id: string;
  agent_id: string;
  start_ms: number;
  end_ms: number;
  /** Wall time of the remote call, retries included (absent for a cached reply or a task not sent). */
  ms?: number;
  /** The reply's status (`completed`, `input_required`), or `failed`. */
  status: string;
  /** The failure code when it failed (`timeout`, `breaker_open`, ...). */
  code?: string;
  cached?: boolean;
  /** The values it was sent, each with its source. */
  inputs: RecordedInput[];
}

/** The verify step's verdict. */
export interface RecordedVerdict {
  sufficient: boolean;
  judged: boolean;
  retried: string[];
  rounds: number;
  missing?: { task_id: string; reason: string }[];
}

/**
 * A finished turn as `GET /v1/turns(/:turn_id)` and the console read it: written once with the turn's end
 * (`TranscriptStore.finishTurn`), kept and deleted with the turn (retention, forgetting a user), personal
 * data masked on the way in like the transcript. Times are ISO text; `*_ms` are offsets from `at`.
 * `user_id` is the owner key (tenant-qualified): the HTTP layer shows it masked.
 */
export interface StoredTurnRecord {
  turn_id: string;
  session_id: string;
  user_id: string;
  trace_id: string;
  /** When the turn started. */
  at: string;
  /** The outcome word `done` carried (`completed`, `partial`, `input_required`, ...). */
  outcome: string;
  duration_ms: number;
  /** Agents the turn planned or called, in first-seen order. */
  agents: string[];
  usage: TurnUsage;
  registry_version: string;
  /** This turn's number in its session as `user` value sources count turns (absent when nothing was planned). */
  session_turn?: number;
  query: string;
  answer: string;
  stages: RecordedStage[];
  /** Wall time of each graph node, as `done` carried it. */
  timings_ms: Record<string, number>;
  plan?: { plan_id: string; task_type: string; tasks: RecordedTask[] };
  calls: RecordedCall[];
  verify?: RecordedVerdict;
}

/** Which turn records `listTurnRecords` returns: one tenant's, newest first. */
export interface TurnRecordQuery {
  tenant: string;
  outcome?: string;
  /** Only turns that planned or called this agent. */
  agent?: string;
  sessionId?: string;
  /** Only turns started at or after this ISO time. */
  since?: string;
  /** Only turns after this one in the order (the cursor: started before it, or at the same time with a smaller id). */
  before?: { at: string; turnId: string };
  limit: number;
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

/** The read side of turn records (`GET /v1/turns`, the console); always within one tenant. */
export interface TurnRecordReader {
  /** Finished turns' records of one tenant, newest first (started_at, then turn id, descending). */
  listTurnRecords(query: TurnRecordQuery): Promise<StoredTurnRecord[]>;
  /** One finished turn's record, if it belongs to `tenant` (another tenant's turn is undefined). */
  getTurnRecord(tenant: string, turnId: string): Promise<StoredTurnRecord | undefined>;
}

/**
 * Sessions and the append-only transcript, written ahead: the user's row is
 * committed before the graph runs, the answer row when the turn ends.
 */
export interface TranscriptStore extends TranscriptReader, TurnRecordReader {
  /**
   * Records the turn as running and appends the user's row, in one atomic
   * write. Any other turn of the session still marked running is closed as
   * `interrupted` (an empty answer row with `metadata.outcome: "interrupted"`)
   * and its id returned: the caller holds the session's lease, so such a turn
   * belonged to a holder that died. Repeating the call for the same turn id
   * changes nothing. With `start.lease`, `leaseTaken` says whether it was
   * taken (false: nothing written).
   */
  beginTurn(start: TurnStart): Promise<{
    interrupted: string[];
    leaseTaken?: boolean;
    /**
     * Present when the start is written but durable only later (SQLite's group commit, decision 0051):
     * settles once it is, rejects when it could not be. Absent: durable when the promise resolved.
     */
    durable?: Promise<void>;
  }>;
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

/** One finished turn as read back for replay and review: its record, the user's message as stored (masked), its events when asked for. */
export interface RecordedTurn extends TurnRecord {
  /** The user's message of the turn, as stored ('' for a turn answered from body fields alone). */
  query: string;
  /** The user row's metadata (trace id and the request fields kept with the message). */
  query_metadata: Record<string, unknown>;
  /** The turn's stored events in order (only when `withEvents` was asked). */
  events?: StoredEvent[];
}

/** Which recorded turns to read: finished ones, newest first, one page at a time. */
export interface RecordedTurnQuery {
  /** Only turns started at or after this ISO time. */
  since?: string;
  /** Only turns of this tenant's owners (`''`: the default tenant); absent: every tenant. */
  tenant?: string;
  /** The cursor: only turns that come after this one (older, in the newest-first order). */
  before?: { started_at: string; turn_id: string };
  /** Page size (at least 1). */
  limit: number;
  /** Read each turn's events too (one more query per page). */
  withEvents?: boolean;
}

/** Reads recorded turns back, page by page (`switchboard replay` and `review`); never writes. */
export interface TurnHistoryReader {
  /** One page of finished turns, newest first (by start time, then turn id). */
  page(query: RecordedTurnQuery): Promise<RecordedTurn[]>;
  /** The turn started right after this one in its session, with its events (how a question the turn asked was answered). */
  nextInSession(turnId: string): Promise<RecordedTurn | undefined>;
  /** The stored events of these turns, in order, by turn id (one query; a turn without events maps to []). */
  eventsOf(turnIds: readonly string[]): Promise<Map<string, StoredEvent[]>>;
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
  /**
   * True when these leases live with the transcript: a turn's start may take
   * its session's lease and its finish let go of it in their own writes
   * (`TurnStart.lease`, `TurnFinish.releaseLease`), one round trip each.
   */
  readonly withTranscript?: boolean;
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
  /** A2A server tasks (`sb_a2a_tasks`) that ended before the cutoff. */
  a2aTasks: number;
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
  /** Recorded turns read back in pages (replay and review). */
  readonly history: TurnHistoryReader;
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
   * user (transcript, turns, events, task records, checkpoints, and the A2A
   * server's tasks run for the user, found by `metadata.user_id` within the
   * owner key's tenant). Returns the
   * number of sessions deleted.
   */
  forgetUser(userId: string): Promise<{ sessions: number }>;
  /** Rate-limit counters, shared as far as this backend reaches (across replicas with Redis). */
  readonly createRateLimiter: RateLimiterFactory;
  close(): Promise<void>;
}
