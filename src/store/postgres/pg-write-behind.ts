/**
 * Writes that ride on statements a turn sends anyway (decision 0046): a
 * turn's event batches and its tasks' outcomes wait here, at most
 * `boundMs`, for the next statement that must run — a turn's start, a task's
 * dispatch, a profile write, a checkpoint, a turn's end — and go in front of
 * it as data-modifying CTEs: one round trip, one transaction. When no
 * statement comes within the bound (a slow sub-agent), they are written on
 * their own. A deferred write's promise resolves once it is stored, so
 * followers are told of events only when they can read them.
 *
 * A statement carries the CTEs of the kinds of rows waiting (events, task
 * outcomes, profile rows), each with a fixed text (its rows are arrays), so a
 * carried statement is one prepared statement per combination of kinds.
 *
 * Profile upserts ride the same way (decision 0050): a business turn's
 * profile write goes in front of its checkpoint. A turn's finish waits for
 * carried writes already in flight in other statements, so when the finish
 * (its `done` event, its lease let go) is stored, everything the turn queued
 * before it is stored too.
 */
import type pg from 'pg';
import type { StoredEvent } from '../types.js';
import { PROFILE_UPSERT_SET } from '../profile-rows.js';

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

interface Pending {
  eventTurns: string[];
  eventSeqs: number[];
  eventData: string[];
  eventTimes: string[];
  /** Task outcomes by task id (the last one wins). */
  tasks: Map<string, { status: string; detail: string | null; at: string }>;
  /** Profile upserts by user and key (one of each per statement). */
  profiles: Map<string, ProfileUpsert>;
  waiters: Waiter[];
}

/** One profile row to upsert: the user, the key and the evidence columns (value, session, turn, first seen, updated). */
export interface ProfileUpsert {
  userId: string;
  key: string;
  value: string;
  sessionId: string;
  turnId: string | null;
  firstSeen: string;
  updatedAt: string;
}

/**
 * The carried CTEs, one per kind of row; a statement carries only the kinds
 * it has rows of (an empty CTE still opens its table and indexes). `$n` are
 * numbered from 1 within each; `carried` renumbers them.
 */
const CARRIED_KINDS = [
  {
    parameters: 4,
    text: `sb_carried_events AS (
    INSERT INTO sb_events (turn_id, seq, data, created_at)
    SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[]) ON CONFLICT DO NOTHING
  )`,
  },
  {
    parameters: 4,
    text: `sb_carried_tasks AS (
    UPDATE sb_tasks t SET status = u.status, detail = u.detail, updated_at = u.updated_at
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS u (task_id, status, detail, updated_at)
    WHERE t.task_id = u.task_id
  )`,
  },
  {
    parameters: 7,
    text: `sb_carried_profiles AS (
    INSERT INTO sb_profiles (user_id, fact_key, value, hits, session_id, turn_id, first_seen, updated_at)
    SELECT p.user_id, p.fact_key, p.value, 1, p.session_id, p.turn_id, p.first_seen, p.updated_at
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
      AS p (user_id, fact_key, value, session_id, turn_id, first_seen, updated_at)
    ON CONFLICT (user_id, fact_key) DO UPDATE SET ${PROFILE_UPSERT_SET}
  )`,
  },
] as const;

/** Which kinds a batch has rows of, as a name suffix: `e` events, `t` task outcomes, `p` profile rows. */
type Kinds = string;
const KIND_LETTERS = ['e', 't', 'p'] as const;

/** The CTEs of `kinds`, their parameters numbered from 1, and how many there are. */
function carried(kinds: Kinds): { ctes: string; parameters: number } {
  const parts: string[] = [];
  let parameters = 0;
  KIND_LETTERS.forEach((letter, index) => {
    if (!kinds.includes(letter)) return;
    const kind = CARRIED_KINDS[index]!;
    parts.push(shiftParameters(kind.text, parameters));
    parameters += kind.parameters;
  });
  return { ctes: parts.join(', '), parameters };
}

/** A statement to run, optionally named (prepared once per connection). */
export interface Statement {
  name?: string;
  text: string;
  values: unknown[];
}

export interface WriteBehind {
  /** Stores a turn's events (resolves when stored). */
  events(turnId: string, events: readonly StoredEvent[]): Promise<void>;
  /** Stores a task's outcome (resolves when stored). */
  taskOutcome(taskId: string, status: string, detail: string | null): Promise<void>;
  /** Upserts profile rows (resolves when stored). */
  profiles(rows: readonly ProfileUpsert[]): Promise<void>;
  /** Whether profile rows of the user wait to be written. */
  profilesPending(userId: string): boolean;
  /**
   * Runs a statement with what is waiting in front of it; `avoidTask`: a task it writes itself (not carried then);
   * `afterInFlight`: sent once the carried writes already in flight in other statements are settled.
   */
  query<R extends pg.QueryResultRow>(statement: Statement, options?: { avoidTask?: string; afterInFlight?: boolean }): Promise<pg.QueryResult<R>>;
  /** Writes what is waiting now. */
  flush(): Promise<void>;
}

const empty = (): Pending => ({ eventTurns: [], eventSeqs: [], eventData: [], eventTimes: [], tasks: new Map(), profiles: new Map(), waiters: [] });
const profileKey = (userId: string, key: string) => `${userId.length}:${userId}:${key}`;

/** Shifts `$n` placeholders of a statement by `offset`. */
function shiftParameters(text: string, offset: number): string {
  return text.replace(/\$(\d+)/g, (_match, index: string) => `$${Number(index) + offset}`);
}

/** The statement with the CTEs of `kinds` in front (merged into its own `WITH` when it has one). */
function carriedText(text: string, kinds: Kinds): string {
  const { ctes, parameters } = carried(kinds);
  const shifted = shiftParameters(text.trim(), parameters);
  return /^with\s/i.test(shifted) ? `WITH ${ctes}, ${shifted.slice(5)}` : `WITH ${ctes} ${shifted}`;
}

export function createWriteBehind(pool: pg.Pool, options: { boundMs?: number } = {}): WriteBehind {
  const boundMs = options.boundMs ?? 50;
  let pending = empty();
  let timer: NodeJS.Timeout | undefined;
  const texts = new Map<string, string>();

  const isEmpty = () => pending.waiters.length === 0;
  const take = (): Pending => {
    const taken = pending;
    pending = empty();
    if (timer) clearTimeout(timer);
    timer = undefined;
    return taken;
  };
  const putBack = (taken: Pending) => {
    pending.eventTurns.unshift(...taken.eventTurns);
    pending.eventSeqs.unshift(...taken.eventSeqs);
    pending.eventData.unshift(...taken.eventData);
    pending.eventTimes.unshift(...taken.eventTimes);
    for (const [taskId, outcome] of taken.tasks) if (!pending.tasks.has(taskId)) pending.tasks.set(taskId, outcome);
    // A row queued since is newer evidence; the older one is written first, alone.
    const older = [...taken.profiles].filter(([key]) => pending.profiles.has(key));
    for (const [key, row] of taken.profiles) if (!pending.profiles.has(key)) pending.profiles.set(key, row);
    if (older.length > 0) void flushProfilesAlone(older.map(([, row]) => row));
    pending.waiters.unshift(...taken.waiters);
    arm();
  };
  const kindsOf = (taken: Pending): Kinds =>
    `${taken.eventTurns.length > 0 ? 'e' : ''}${taken.tasks.size > 0 ? 't' : ''}${taken.profiles.size > 0 ? 'p' : ''}`;
  /** The parameters of the CTEs `kindsOf(taken)` names, in their order. */
  const carriedValues = (taken: Pending): unknown[] => {
    const values: unknown[] = [];
    if (taken.eventTurns.length > 0) values.push(taken.eventTurns, taken.eventSeqs, taken.eventData, taken.eventTimes);
    if (taken.tasks.size > 0) {
      const tasks = [...taken.tasks];
      values.push(
        tasks.map(([taskId]) => taskId),
        tasks.map(([, outcome]) => outcome.status),
        tasks.map(([, outcome]) => outcome.detail),
        tasks.map(([, outcome]) => outcome.at),
      );
    }
    if (taken.profiles.size > 0) {
      const profiles = [...taken.profiles.values()];
      values.push(
        profiles.map((row) => row.userId),
        profiles.map((row) => row.key),
        profiles.map((row) => row.value),
        profiles.map((row) => row.sessionId),
        profiles.map((row) => row.turnId),
        profiles.map((row) => row.firstSeen),
        profiles.map((row) => row.updatedAt),
      );
    }
    return values;
  };
  const settle = (taken: Pending, error?: unknown) => {
    for (const waiter of taken.waiters) {
      if (error === undefined) waiter.resolve();
      else waiter.reject(error);
    }
  };

  // Statements carrying writes, until settled (a finish waits for them: `afterInFlight`).
  const inFlight = new Set<Promise<unknown>>();
  const track = <T>(promise: Promise<T>): Promise<T> => {
    const settled: Promise<unknown> = promise.then(
      (): void => void inFlight.delete(settled),
      (): void => void inFlight.delete(settled),
    );
    inFlight.add(settled);
    return promise;
  };
  const carriedOnly = (taken: Pending) => {
    const kinds = kindsOf(taken);
    return track(pool.query({ name: `sb_carried_only_${kinds}`, text: `WITH ${carried(kinds).ctes} SELECT 1`, values: carriedValues(taken) }));
  };

  const flushAlone = async (): Promise<void> => {
    if (isEmpty()) return;
    const taken = take();
    try {
      await carriedOnly(taken);
      settle(taken);
    } catch (error) {
      settle(taken, error);
    }
  };
  /** Profile rows that met newer rows of the same key after a failed carrier: written alone, in their order. */
  async function flushProfilesAlone(rows: ProfileUpsert[]): Promise<void> {
    const only: Pending = { ...empty(), profiles: new Map(rows.map((row) => [profileKey(row.userId, row.key), row])) };
    await carriedOnly(only).catch(() => {});
  }
  function arm() {
    if (!timer && !isEmpty()) timer = setTimeout(() => void flushAlone(), boundMs);
  }
  const wait = (add: (into: Pending) => void) =>
    new Promise<void>((resolve, reject) => {
      add(pending);
      pending.waiters.push({ resolve, reject });
      arm();
    });

  return {
    events(turnId, events) {
      if (events.length === 0) return Promise.resolve();
      const at = new Date().toISOString();
      return wait((into) => {
        for (const event of events) {
          into.eventTurns.push(turnId);
          into.eventSeqs.push(event.seq);
          into.eventData.push(event.data);
          into.eventTimes.push(at);
        }
      });
    },
    taskOutcome(taskId, status, detail) {
      const at = new Date().toISOString();
      return wait((into) => into.tasks.set(taskId, { status, detail, at }));
    },
    async profiles(rows) {
      if (rows.length === 0) return;
      // One row is changed once per statement: a key already waiting is written first.
      if (rows.some((row) => pending.profiles.has(profileKey(row.userId, row.key)))) await flushAlone();
      return wait((into) => {
        for (const row of rows) into.profiles.set(profileKey(row.userId, row.key), row);
      });
    },
    profilesPending(userId) {
      for (const row of pending.profiles.values()) if (row.userId === userId) return true;
      return false;
    },
    async query<R extends pg.QueryResultRow>(statement: Statement, queryOptions: { avoidTask?: string; afterInFlight?: boolean } = {}) {
      if (queryOptions.afterInFlight && inFlight.size > 0) await Promise.all([...inFlight]);
      if (isEmpty() || (queryOptions.avoidTask !== undefined && pending.tasks.has(queryOptions.avoidTask))) {
        return pool.query<R>(statement.name ? statement : { text: statement.text, values: statement.values });
      }
      const taken = take();
      const kinds = kindsOf(taken);
      const name = statement.name ? `${statement.name}_carrying_${kinds}` : undefined;
      let text = name ? texts.get(name) : undefined;
      if (text === undefined) {
        text = carriedText(statement.text, kinds);
        if (name) texts.set(name, text);
      }
      try {
        const result = await track(pool.query<R>({
          ...(name ? { name } : {}),
          text,
          values: [...carriedValues(taken), ...statement.values],
        }));
        settle(taken);
        return result;
      } catch (error) {
        // Neither part is stored: what was carried waits again, the statement is tried on its own.
        putBack(taken);
        return pool.query<R>(statement.name ? statement : { text: statement.text, values: statement.values });
      }
    },
    flush: flushAlone,
  };
}
