export type {
  A2aTaskQuery,
  A2aTaskRow,
  A2aTaskRows,
  KeyValue,
  KeyValueStore,
  LeaseStore,
  ProfileEvidence,
  ProfileFact,
  ProfileStore,
  RecordedTurn,
  RecordedTurnQuery,
  RetentionResult,
  SessionAccess,
  SignalBus,
  Storage,
  StoredEvent,
  StoredMessage,
  TaskRecord,
  TaskStatus,
  TaskStore,
  TranscriptReader,
  TranscriptStore,
  TurnEventStore,
  TurnFinish,
  TurnHistoryReader,
  TurnOutcome,
  TurnRecord,
  TurnStart,
  AgentUsage,
  RecordedCall,
  RecordedInput,
  RecordedStage,
  RecordedTask,
  RecordedValueSource,
  RecordedVerdict,
  StoredTurnRecord,
  TurnRecordQuery,
  TurnRecordReader,
  TurnUsage,
} from './types.js';
export { openStorage, redactUrl, type OpenStorageOptions } from './open-storage.js';
export { openSqliteStorage } from './sqlite/open-sqlite-storage.js';
export { createMemoryKeyValueStore, type MemoryKeyValueStoreOptions } from './kv-store.js';
export { createMemoryRateLimiter, type RateDecision, type RateLimiter, type RateLimiterFactory, type RateLimiterOptions } from './rate-limiter.js';
export { startRetentionJob, type RetentionJob } from './retention-job.js';
export { DEFAULT_TENANT, a2aTaskOwner, checkpointThread, ownerKey, tenantOfOwner } from './owner-key.js';
export type { PendingTask, ValueSource } from './parked-task.js';
