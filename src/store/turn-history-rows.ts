/**
 * The row of a recorded turn (its turn row joined with its user row) as both
 * SQL backends return it, and the owner-key prefix that selects a tenant.
 */
import { DEFAULT_TENANT } from './owner-key.js';
import { messageFromRow, turnFromRow, type TurnRow } from './rows.js';
import type { RecordedTurn } from './types.js';

/** A turn row with its user row's content and metadata (null when the turn has no user row). */
export interface RecordedTurnRow extends TurnRow {
  query: string | null;
  query_metadata: string | Record<string, unknown> | null;
}

/** Maps a joined row to the contract's record. */
export function recordedTurnFromRow(row: RecordedTurnRow): RecordedTurn {
  const metadata = messageFromRow({ seq: 0, turn_id: row.turn_id, role: 'user', content: row.query ?? '', metadata: row.query_metadata, created_at: row.started_at }).metadata;
  return { ...turnFromRow(row), query: row.query ?? '', query_metadata: metadata ?? {} };
}

/**
 * What every owner key of `tenant` starts with (`<tenant>/`), or undefined for
 * the default tenant, whose owner keys are bare user ids (no `/`).
 */
export function tenantPrefix(tenant: string): string | undefined {
  return tenant === DEFAULT_TENANT ? undefined : `${tenant}/`;
}
