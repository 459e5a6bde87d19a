/**
 * Row ↔ `ProfileFact` mapping shared by the SQL implementations, and the one
 * upsert rule both run: the same value again raises `hits`, a different value
 * replaces it with `hits` 1 (newer evidence wins).
 */
import { safeJsonParse } from '../util/index.js';
import type { ProfileEvidence, ProfileFact } from './types.js';

/** A `sb_profiles` row. */
export interface ProfileRow {
  fact_key: string;
  value: string;
  hits: number;
  session_id: string;
  turn_id: string | null;
  first_seen: string;
  updated_at: string;
}

/** The SET clause of the upsert (`excluded` is the new row; same text in SQLite and Postgres). */
export const PROFILE_UPSERT_SET = `
  hits = CASE WHEN sb_profiles.value = excluded.value THEN sb_profiles.hits + 1 ELSE 1 END,
  first_seen = CASE WHEN sb_profiles.value = excluded.value THEN sb_profiles.first_seen ELSE excluded.first_seen END,
  value = excluded.value, session_id = excluded.session_id, turn_id = excluded.turn_id, updated_at = excluded.updated_at`;

/** A row as a fact, or undefined when its value is unreadable. */
export function factFromRow(row: ProfileRow): ProfileFact | undefined {
  const parsed = safeJsonParse(row.value);
  if (!parsed.ok || (typeof parsed.value !== 'string' && typeof parsed.value !== 'number')) return undefined;
  return {
    key: row.fact_key,
    value: parsed.value,
    hits: row.hits,
    source: { session_id: row.session_id, ...(row.turn_id ? { turn_id: row.turn_id } : {}) },
    first_seen: row.first_seen,
    updated_at: row.updated_at,
  };
}

/** The values of one evidence row, in column order: value, session_id, turn_id, first_seen, updated_at. */
export function evidenceColumns(item: ProfileEvidence): [string, string, string | null, string, string] {
  return [JSON.stringify(item.value), item.session_id, item.turn_id ?? null, item.at, item.at];
}

/** The evidence of one record call, one item per key (the last): a key given twice in one call counts once. */
export function lastPerKey(evidence: readonly ProfileEvidence[]): ProfileEvidence[] {
  return [...new Map(evidence.map((item) => [item.key, item])).values()];
}
