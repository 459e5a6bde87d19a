/**
 * The cost ledger's counters, installed around a counted stretch of turns
 * and removed after it (bench only; the server's code is not changed by
 * them): storage statements and round trips with the bytes of their
 * parameters (pg `Client#query`, better-sqlite3 statement runs, ioredis
 * commands), `JSON.stringify` calls and the characters they wrote, regular
 * expression executions (`RegExp#exec`, which `test`, `match`, `replace` and
 * `split` call once a pattern's prototype is patched; a global pattern counts
 * once per match), SQLite commits (COMMIT, or a write outside a
 * transaction), writes to the server's client sockets, outgoing HTTP
 * requests (undici's and node:http's diagnostics channels), JSON Schema compilations (ajv), and what the
 * server's own counts (`src/util/cost-ledger.ts`: guard and masking passes)
 * add when the checkout has them.
 *
 * Patching `RegExp#exec` takes V8 off its fast paths, so CPU is never
 * measured while the counters are installed.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createRequire } from 'node:module';
import { Socket } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export type Counts = Record<string, number>;

type AnyFunction = (this: unknown, ...args: unknown[]) => unknown;

interface Patch {
  target: Record<string, unknown>;
  key: string;
  original: unknown;
}

/** Bytes of one bound value as sent (strings as UTF-8, buffers as they are, numbers 8, JSON-like values serialised). */
function valueBytes(value: unknown): number {
  if (value === null || value === undefined) return 0;
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (Buffer.isBuffer(value)) return value.length;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return 8;
  if (value instanceof Date) return 8;
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + valueBytes(item), 0);
  if (typeof value === 'object') return Object.values(value).reduce((sum: number, item) => sum + valueBytes(item), 0);
  return 0;
}

/** One line of SQL, its first words, for the per-statement breakdown (no regular expression: those are being counted). */
function statementName(text: string): string {
  let line = '';
  let space = false;
  for (const char of text) {
    const blank = char === ' ' || char === '\n' || char === '\t' || char === '\r';
    if (blank) space = line.length > 0;
    else {
      if (space) line += ' ';
      space = false;
      line += char;
    }
  }
  // A statement carrying waiting writes in front of it (src/store/postgres/pg-write-behind.ts) is named by its own text.
  // It carries events, task outcomes and profile rows, in that order, each only when it has some: the carried part
  // ends where its last carried CTE does.
  if (!line.startsWith('WITH sb_carried_')) return line.slice(0, 90);
  const marker = line.includes('sb_carried_profiles AS')
    ? 'updated_at = excluded.updated_at )'
    : line.includes('sb_carried_tasks AS')
      ? 'WHERE t.task_id = u.task_id )'
      : 'ON CONFLICT DO NOTHING )';
  if (!line.includes(marker)) return line.slice(0, 90);
  const rest = line.slice(line.indexOf(marker) + marker.length);
  return `(carrying) ${(rest.startsWith(', ') ? rest.slice(2) : rest.trimStart()).slice(0, 80)}`;
}

export interface CostCounters {
  /** Starts counting (installs the patches). */
  start(): void;
  /** Stops counting (removes them) and returns the counts since `start`, and the statements and patterns run, by text. */
  stop(): { counts: Counts; statements: Counts };
}

/**
 * Counters over the modules the checkout at `root` loads (its own `pg`,
 * `better-sqlite3`, `ioredis`, `ajv`, and its `src/util` counts when present).
 */
export async function createCostCounters(root: string): Promise<CostCounters> {
  const require = createRequire(join(root, 'package.json'));
  const pg = require('pg') as { Client: { prototype: Record<string, unknown> } };
  const Database = require('better-sqlite3') as new (file: string) => { prepare(sql: string): object; close(): void };
  const redis = require('ioredis') as { Redis?: { prototype: Record<string, unknown> }; default?: { prototype: Record<string, unknown> } };
  const Pipeline = require('ioredis/built/Pipeline.js') as { default: { prototype: Record<string, unknown> } };
  const ajv = require('ajv') as { Ajv: { prototype: object } };
  const ledger = await import(pathToFileURL(join(root, 'src/util/cost-ledger.ts')).href).catch(() => undefined) as
    | { costLedger: { enabled: boolean; counts: Map<string, number> } }
    | undefined;

  const probe = new Database(':memory:');
  const statementPrototype = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<string, unknown>;
  const databasePrototype = Object.getPrototypeOf(probe) as Record<string, unknown>;
  probe.close();
  const redisPrototype = (redis.Redis ?? redis.default)!.prototype;
  const ajvPrototype = Object.getPrototypeOf(ajv.Ajv.prototype) as Record<string, unknown>;

  let counts: Counts = {};
  let statements: Counts = {};
  const add = (name: string, amount = 1) => {
    counts[name] = (counts[name] ?? 0) + amount;
  };
  const patches: Patch[] = [];
  const wrap = (target: Record<string, unknown>, key: string, make: (original: AnyFunction) => AnyFunction) => {
    const original = target[key] as AnyFunction;
    patches.push({ target, key, original });
    target[key] = make(original);
  };

  const onHttp = () => add('outgoing requests');
  const socketPrototype = Socket.prototype as unknown as Record<string, unknown>;

  return {
    start() {
      counts = {};
      statements = {};
      wrap(pg.Client.prototype, 'query', (original) =>
        function (this: unknown, ...args: unknown[]) {
          const config = args[0] as string | { text?: string; values?: unknown[]; name?: string } | undefined;
          const text = typeof config === 'string' ? config : (config?.text ?? '');
          const values = Array.isArray(args[1]) ? args[1] : typeof config === 'object' ? config?.values : undefined;
          add('storage round trips');
          add('storage statements');
          add('storage bytes sent', valueBytes(values));
          const name = `pg: ${statementName(text)}`;
          statements[name] = (statements[name] ?? 0) + 1;
          return original.apply(this, args);
        },
      );
      for (const method of ['run', 'get', 'all', 'iterate']) {
        wrap(statementPrototype, method, (original) =>
          function (this: unknown, ...args: unknown[]) {
            add('storage round trips');
            add('storage statements');
            add('storage bytes sent', valueBytes(args));
            const statement = this as { source?: string; readonly?: boolean; database?: { inTransaction?: boolean } };
            const name = `sqlite: ${statementName(String(statement.source ?? ''))}`;
            statements[name] = (statements[name] ?? 0) + 1;
            // A commit: COMMIT itself, or a write run outside any transaction (SQLite commits it alone).
            // (No regular expression here: those are being counted.)
            const control = ['BEGIN', 'SAVEPOINT', 'RELEASE', 'ROLLBACK'].some((word) => name.startsWith(`sqlite: ${word}`));
            if (name === 'sqlite: COMMIT' || (method === 'run' && !control && statement.readonly === false && statement.database?.inTransaction === false)) add('sqlite commits');
            return original.apply(this, args);
          },
        );
      }
      wrap(databasePrototype, 'exec', (original) =>
        function (this: unknown, ...args: unknown[]) {
          add('storage round trips');
          add('storage statements', String(args[0]).split(';').filter((part) => part.trim()).length);
          return original.apply(this, args);
        },
      );
      wrap(databasePrototype, 'prepare', (original) =>
        function (this: unknown, ...args: unknown[]) {
          add('sqlite statements prepared');
          return original.apply(this, args);
        },
      );
      wrap(redisPrototype, 'sendCommand', (original) =>
        function (this: unknown, ...args: unknown[]) {
          add('redis commands');
          // A pipeline's commands are sent with its stream; the pipeline is counted once, below.
          if (args[1] === undefined) add('redis round trips');
          return original.apply(this, args);
        },
      );
      wrap(Pipeline.default.prototype, 'exec', (original) =>
        function (this: unknown, ...args: unknown[]) {
          add('redis round trips');
          return original.apply(this, args);
        },
      );
      wrap(ajvPrototype, 'compile', (original) =>
        function (this: unknown, ...args: unknown[]) {
          add('schema compilations');
          return original.apply(this, args);
        },
      );
      wrap(JSON as unknown as Record<string, unknown>, 'stringify', (original) =>
        function (this: unknown, ...args: unknown[]) {
          const text = original.apply(this, args);
          add('JSON serialisations');
          if (typeof text === 'string') add('JSON chars written', text.length);
          return text;
        },
      );
      wrap(RegExp.prototype as unknown as Record<string, unknown>, 'exec', (original) =>
        function (this: unknown, ...args: unknown[]) {
          add('regex executions');
          const name = `regex: /${String((this as RegExp).source).slice(0, 70)}/`;
          statements[name] = (statements[name] ?? 0) + 1;
          return original.apply(this, args);
        },
      );
      // Writes to the sockets of the server's clients (a write system call each): what the SSE streams cost.
      wrap(socketPrototype, '_writeGeneric', (original) =>
        function (this: unknown, ...args: unknown[]) {
          if ((this as { server?: unknown }).server) add('socket writes to clients');
          return original.apply(this, args);
        },
      );
      subscribe('undici:request:create', onHttp);
      subscribe('http.client.request.start', onHttp);
      if (ledger) {
        ledger.costLedger.counts.clear();
        ledger.costLedger.enabled = true;
      }
    },
    stop() {
      for (const patch of patches.reverse()) patch.target[patch.key] = patch.original;
      patches.length = 0;
      unsubscribe('undici:request:create', onHttp);
      unsubscribe('http.client.request.start', onHttp);
      if (ledger) {
        ledger.costLedger.enabled = false;
        for (const [name, value] of ledger.costLedger.counts) counts[name] = value;
      }
      return { counts, statements };
    },
  };
}
