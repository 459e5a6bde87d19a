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
 * The CTEs always have the same text (their rows are arrays), so a carried
 * statement is one prepared statement whatever it carries.
 */
import type pg from 'pg';
import type { StoredEvent } from '../types.js';

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
  waiters: Waiter[];
}

const CTES = `sb_carried_events AS (
    INSERT INTO sb_events (turn_id, seq, data, created_at)
    SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[]) ON CONFLICT DO NOTHING
  ), sb_carried_tasks AS (
    UPDATE sb_tasks t SET status = u.status, detail = u.detail, updated_at = u.updated_at
    FROM unnest($5::text[], $6::text[], $7::text[], $8::text[]) AS u (task_id, status, detail, updated_at)
    WHERE t.task_id = u.task_id
  )`;
const CARRIED_PARAMETERS = 8;

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
  /** Runs a statement with what is waiting in front of it; `avoidTask`: a task it writes itself (not carried then). */
  query<R extends pg.QueryResultRow>(statement: Statement, options?: { avoidTask?: string }): Promise<pg.QueryResult<R>>;
  /** Writes what is waiting now. */
  flush(): Promise<void>;
}

const empty = (): Pending => ({ eventTurns: [], eventSeqs: [], eventData: [], eventTimes: [], tasks: new Map(), waiters: [] });

/** Shifts `$n` placeholders of a statement by `offset`. */
function shiftParameters(text: string, offset: number): string {
  return text.replace(/\$(\d+)/g, (_match, index: string) => `$${Number(index) + offset}`);
}

/** The statement with the CTEs in front (merged into its own `WITH` when it has one). */
function carriedText(text: string): string {
  const shifted = shiftParameters(text.trim(), CARRIED_PARAMETERS);
  return /^with\s/i.test(shifted) ? `WITH ${CTES}, ${shifted.slice(5)}` : `WITH ${CTES} ${shifted}`;
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
    pending.waiters.unshift(...taken.waiters);
    arm();
  };
  const carriedValues = (taken: Pending): unknown[] => {
    const tasks = [...taken.tasks];
    return [
      taken.eventTurns,
      taken.eventSeqs,
      taken.eventData,
      taken.eventTimes,
      tasks.map(([taskId]) => taskId),
      tasks.map(([, outcome]) => outcome.status),
      tasks.map(([, outcome]) => outcome.detail),
      tasks.map(([, outcome]) => outcome.at),
    ];
  };
  const settle = (taken: Pending, error?: unknown) => {
    for (const waiter of taken.waiters) {
      if (error === undefined) waiter.resolve();
      else waiter.reject(error);
    }
  };

  const flushAlone = async (): Promise<void> => {
    if (isEmpty()) return;
    const taken = take();
    try {
      await pool.query({ name: 'sb_carried_only', text: `WITH ${CTES} SELECT 1`, values: carriedValues(taken) });
      settle(taken);
    } catch (error) {
      settle(taken, error);
    }
  };
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
    async query<R extends pg.QueryResultRow>(statement: Statement, queryOptions: { avoidTask?: string } = {}) {
      if (isEmpty() || (queryOptions.avoidTask !== undefined && pending.tasks.has(queryOptions.avoidTask))) {
        return pool.query<R>(statement.name ? statement : { text: statement.text, values: statement.values });
      }
      let text = statement.name ? texts.get(statement.name) : undefined;
      if (text === undefined) {
        text = carriedText(statement.text);
        if (statement.name) texts.set(statement.name, text);
      }
      const taken = take();
      try {
        const result = await pool.query<R>({
          ...(statement.name ? { name: `${statement.name}_carrying` } : {}),
          text,
          values: [...carriedValues(taken), ...statement.values],
        });
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
