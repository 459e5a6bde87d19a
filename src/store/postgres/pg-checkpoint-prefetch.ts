/**
 * The newest checkpoint of a turn's thread, read by the turn's start
 * (decision 0050): the start runs once the session's lease is held (taken in
 * the same statement, or before it from Redis), and no one writes a thread's
 * checkpoint without that lease, so what the start read is what the graph's
 * checkpoint read would find a few milliseconds later. The saver takes it
 * once, within a few seconds, instead of a round trip of its own; a
 * checkpoint written or deleted in this process drops it.
 */
import { createTakeOnce } from '../../util/index.js';
import { checkpointThread } from '../owner-key.js';

/** The checkpoint columns the turn's start returns (`cp_*`), as the saver's own read returns them. */
export interface CheckpointRow {
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  checkpoint: { v: number; [key: string]: unknown };
  metadata: Record<string, unknown>;
  channel_values: [Uint8Array, Uint8Array, Uint8Array][] | null;
  pending_writes: [Uint8Array, Uint8Array, Uint8Array, Uint8Array][] | null;
}

/**
 * The SELECT list and FROM of the turn's start: its thread's newest checkpoint
 * (root namespace) with the blobs of its channel versions and its pending
 * writes, NULLs when the thread has none. `$thread` is replaced by the
 * statement's parameter.
 */
export function checkpointColumns(thread: string): { select: string; from: string } {
  return {
    select: 'cp.checkpoint_id AS cp_id, cp.parent_checkpoint_id AS cp_parent, cp.checkpoint AS cp_checkpoint, cp.metadata AS cp_metadata, cp.channel_values AS cp_channel_values, cp.pending_writes AS cp_pending_writes, cp.found AS cp_found',
    from: `FROM (SELECT 1) AS one LEFT JOIN LATERAL (
      SELECT true AS found, c.checkpoint_id, c.parent_checkpoint_id, c.checkpoint, c.metadata,
        (SELECT array_agg(array[b.channel::bytea, b.type::bytea, b.blob])
           FROM jsonb_each_text(c.checkpoint -> 'channel_versions') AS v
           JOIN checkpoint_blobs b ON b.thread_id = c.thread_id AND b.checkpoint_ns = c.checkpoint_ns AND b.channel = v.key AND b.version = v.value) AS channel_values,
        (SELECT array_agg(array[w.task_id::text::bytea, w.channel::bytea, w.type::bytea, w.blob] ORDER BY w.task_id, w.idx)
           FROM checkpoint_writes w
           WHERE w.thread_id = c.thread_id AND w.checkpoint_ns = c.checkpoint_ns AND w.checkpoint_id = c.checkpoint_id) AS pending_writes
      FROM checkpoints c WHERE c.thread_id = ${thread} AND c.checkpoint_ns = '' ORDER BY c.checkpoint_id DESC LIMIT 1
    ) AS cp ON true`,
  };
}

/** The columns as the start's row has them. */
export interface CheckpointColumnsRow {
  cp_found: boolean | null;
  cp_id: string | null;
  cp_parent: string | null;
  cp_checkpoint: CheckpointRow['checkpoint'] | null;
  cp_metadata: Record<string, unknown> | null;
  cp_channel_values: CheckpointRow['channel_values'];
  cp_pending_writes: CheckpointRow['pending_writes'];
}

/** Checkpoints read with turns' starts, by thread: `null` when the thread had none. */
export interface PrefetchedCheckpoints {
  /** Keeps what the start of `owner`'s turn on `sessionId` read. */
  put(owner: string, sessionId: string, row: CheckpointColumnsRow): void;
  /** Takes the thread's entry once (undefined: nothing fresh, read it). */
  take(threadId: string): CheckpointRow | null | undefined;
  /** A checkpoint of the thread was written or deleted here. */
  forget(threadId: string): void;
  /** Every thread starting with `prefix` (a user forgotten). */
  forgetPrefix(prefix: string): void;
}

export function createPrefetchedCheckpoints(maxAgeMs = 5000): PrefetchedCheckpoints {
  const byThread = createTakeOnce<CheckpointRow | null>(maxAgeMs);
  return {
    put(owner, sessionId, columns) {
      const row: CheckpointRow | null =
        columns.cp_found === true && columns.cp_id !== null && columns.cp_checkpoint !== null
          ? {
              checkpoint_id: columns.cp_id,
              parent_checkpoint_id: columns.cp_parent,
              checkpoint: columns.cp_checkpoint,
              metadata: columns.cp_metadata ?? {},
              channel_values: columns.cp_channel_values,
              pending_writes: columns.cp_pending_writes,
            }
          : null;
      byThread.put(checkpointThread(owner, sessionId), row);
    },
    take: (threadId) => byThread.take(threadId),
    forget: (threadId) => byThread.forget(threadId),
    forgetPrefix: (prefix) => byThread.forgetPrefix(prefix),
  };
}
