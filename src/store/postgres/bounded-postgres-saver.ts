/**
 * The official LangGraph Postgres checkpointer with a cheaper `put`: the
 * stock one sends BEGIN, one upsert per changed channel, the checkpoint and
 * COMMIT (about fifteen round trips for our state); this one writes the same
 * rows in one statement (still atomic), and in the same statement drops the
 * thread's older checkpoints, their writes and the channel blobs only they
 * used — Switchboard reads only the newest checkpoint of a thread, so this is
 * the pruning SQLite does after each turn, for free. The newest checkpoint
 * of a thread is taken from what the turn's start read with it, when fresh
 * (pg-checkpoint-prefetch.ts). Other reads, writes of pending tasks, listing
 * and the schema are the library's own.
 */
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import type { RunnableConfig } from '@langchain/core/runnables';
import type { Checkpoint, CheckpointMetadata } from '@langchain/langgraph';
import type pg from 'pg';
import type { CheckpointTuple } from '@langchain/langgraph';
import type { WriteBehind } from './pg-write-behind.js';
import type { CheckpointRow, PrefetchedCheckpoints } from './pg-checkpoint-prefetch.js';

const PUT_AND_PRUNE = `
WITH saved_blobs AS (
  INSERT INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob)
  SELECT $1, $2, blob.channel, blob.version, blob.type, blob.data
  FROM unnest($7::text[], $8::text[], $9::text[], $10::bytea[]) AS blob (channel, version, type, data)
  ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING
  RETURNING 1
), saved AS (
  INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)
  VALUES ($1, $2, $3, $4, $5, $6)
  ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint, metadata = EXCLUDED.metadata
  RETURNING 1
), older_checkpoints AS (
  DELETE FROM checkpoints WHERE thread_id = $1 AND checkpoint_ns = $2 AND checkpoint_id <> $3 RETURNING 1
), older_writes AS (
  DELETE FROM checkpoint_writes WHERE thread_id = $1 AND checkpoint_ns = $2 AND checkpoint_id <> $3 RETURNING 1
), unused_blobs AS (
  DELETE FROM checkpoint_blobs
  WHERE thread_id = $1 AND checkpoint_ns = $2 AND ($5::jsonb -> 'channel_versions' ->> channel) IS DISTINCT FROM version
  RETURNING 1
)
SELECT (SELECT count(*) FROM saved) AS saved`;

/** A Postgres checkpointer that keeps only the newest checkpoint of each thread. */
export class BoundedPostgresSaver extends PostgresSaver {
  /** Tables are found through the pool's `search_path` (see open-postgres-storage.ts). */
  constructor(
    connectionPool: pg.Pool,
    schema: string,
    private readonly writes: WriteBehind,
    private readonly prefetched?: PrefetchedCheckpoints,
  ) {
    super(connectionPool, undefined, { schema });
  }

  override async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const { thread_id: threadId, checkpoint_ns: namespace = '', checkpoint_id: checkpointId } = (config.configurable ?? {}) as {
      thread_id?: string;
      checkpoint_ns?: string;
      checkpoint_id?: string;
    };
    if (this.prefetched && typeof threadId === 'string' && namespace === '' && !checkpointId) {
      const row = this.prefetched.take(threadId);
      if (row === null) return undefined;
      // Checkpoints older than format 4 go through the library (it migrates their pending sends).
      if (row !== undefined && row.checkpoint.v >= 4) return this.tupleOf(threadId, row);
    }
    return super.getTuple(config);
  }

  override async deleteThread(threadId: string): Promise<void> {
    this.prefetched?.forget(threadId);
    await super.deleteThread(threadId);
  }

  /** The tuple the library's own read builds from the same columns. */
  private async tupleOf(threadId: string, row: CheckpointRow): Promise<CheckpointTuple> {
    const at = (checkpointId: string) => ({ configurable: { thread_id: threadId, checkpoint_ns: '', checkpoint_id: checkpointId } });
    return {
      config: at(row.checkpoint_id),
      checkpoint: await this._loadCheckpoint(row.checkpoint as never, row.channel_values as never),
      metadata: (await this._loadMetadata(row.metadata)) as CheckpointTuple['metadata'],
      ...(row.parent_checkpoint_id ? { parentConfig: at(row.parent_checkpoint_id) } : {}),
      pendingWrites: await this._loadWrites(row.pending_writes as never),
    };
  }

  override async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: Parameters<PostgresSaver['put']>[3]): Promise<RunnableConfig> {
    if (config.configurable === undefined) throw new Error('Missing "configurable" field in "config" param');
    const { thread_id: threadId, checkpoint_ns: namespace = '', checkpoint_id: parentId } = config.configurable as {
      thread_id: string;
      checkpoint_ns?: string;
      checkpoint_id?: string;
    };
    this.prefetched?.forget(threadId);
    const serialisedCheckpoint = this._dumpCheckpoint(checkpoint);
    const [blobs, serialisedMetadata] = await Promise.all([
      this._dumpBlobs(threadId, namespace, checkpoint.channel_values, newVersions),
      this._dumpMetadata(metadata),
    ]);
    // The turn's waiting events and task outcomes ride on it (pg-write-behind.ts).
    await this.writes.query({ name: 'sb_put_and_prune', text: PUT_AND_PRUNE, values: [
      threadId,
      namespace,
      checkpoint.id,
      parentId ?? null,
      serialisedCheckpoint,
      serialisedMetadata,
      blobs.map((blob) => blob[2]),
      blobs.map((blob) => blob[3]),
      blobs.map((blob) => blob[4]),
      blobs.map((blob) => (blob[5] === undefined ? null : Buffer.from(blob[5]))),
    ] });
    return { configurable: { thread_id: threadId, checkpoint_ns: namespace, checkpoint_id: checkpoint.id } };
  }
}
