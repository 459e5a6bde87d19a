/**
 * The deployment's sealing key when `SWITCHBOARD_DATA_KEY` is not set: drawn
 * once and kept in the storage backend's key-value store, so every replica
 * and every restart on the same database seals and opens parked personal
 * values with the same key. The first replica to start writes it (set if
 * absent, so replicas starting together agree); the others read it.
 *
 * The key then lives in the same database as the sealed values: nothing is
 * readable by grepping tables or the database file, but whoever can read the
 * whole database can open the seals. Setting `SWITCHBOARD_DATA_KEY` keeps the
 * key out of the data.
 */
import { randomBytes } from 'node:crypto';
import type { KeyValueStore } from '../store/index.js';

/** Where the key is kept in the key-value store. */
export const STORED_DATA_KEY = 'switchboard:data-key:v1';

/** Entries of the key-value store need a time to live; the key's outlives any deployment (about a century). */
const KEEP_MS = 100 * 365 * 24 * 60 * 60 * 1000;

/** The key kept in `kv`, written first if there is none yet. Throws when the store holds no usable key after the write. */
export async function loadOrCreateDataKey(kv: KeyValueStore): Promise<string> {
  const existing = await kv.get(STORED_DATA_KEY);
  if (typeof existing === 'string' && existing.length > 0) return existing;
  const drawn = randomBytes(32).toString('base64url');
  if (await kv.setIfAbsent(STORED_DATA_KEY, drawn, KEEP_MS)) return drawn;
  // Another replica wrote it first: use theirs.
  const stored = await kv.get(STORED_DATA_KEY);
  if (typeof stored !== 'string' || stored.length === 0) throw new Error('the stored data key could not be read back from the storage backend');
  return stored;
}
