/**
 * `GET /v1/turns` and `GET /v1/turns/:turn_id` (contract v4 "Turn records and
 * the console"): finished turns of the caller's tenant, newest first, from
 * the records each turn writes with its end (src/store/types.ts
 * `StoredTurnRecord`). The list filters by outcome, agent, session and start
 * time and pages with an opaque cursor; one turn adds its stages, plan,
 * calls with each value's source, verdict and answer. Personal data was
 * masked when the record was written; the user id is shown shortened as well,
 * and the tenant prefix of the owner key never leaves. Admission is
 * `admin-admission.ts`'s.
 */
import type { Request, RequestHandler } from 'express';
import { UserError } from '../errors.js';
import { isValidId } from '../id-patterns.js';
import type { RecordedInput, StoredTurnRecord, TurnRecordQuery, TurnRecordReader } from '../store/index.js';
import { TURN_OUTCOMES } from '../turn/index.js';
import { spannedWords } from '../understanding/index.js';
import { callerTenant } from './auth.js';
import { requireIdParameter } from './chat-request.js';

/** Query parameters `GET /v1/turns` reads. */
export const TURN_LIST_PARAMETERS = ['outcome', 'agent', 'session_id', 'since', 'cursor', 'limit'] as const;

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;
/** Turns of one session read to name the turn behind an earlier turn's `user` source. */
const SESSION_TURNS_READ = 200;
const AGENT_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

/** The user id as the console shows it: the tenant prefix dropped, the middle hidden. */
export function shownUserId(owner: string): string {
  const at = owner.indexOf('/');
  const userId = at < 0 ? owner : owner.slice(at + 1);
  if (userId.length <= 2) return '*'.repeat(userId.length);
  const hidden = Math.min(userId.length - 2, 6);
  return `${userId.slice(0, 1)}${'*'.repeat(hidden)}${userId.slice(-1)}`;
}

/** One string query parameter, or undefined when absent; a repeated or empty one is refused. */
function oneParameter(request: Request, name: string): string | undefined {
  const value: unknown = request.query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new UserError('BAD_REQUEST', `${name} must be given once, as a string`, { field: name });
  if (value === '') throw new UserError('BAD_REQUEST', `${name} is empty; leave it out to not filter by it`, { field: name });
  return value;
}

/** The listing's cursor: where the previous page ended. */
export function encodeCursor(record: Pick<StoredTurnRecord, 'at' | 'turn_id'>): string {
  return Buffer.from(JSON.stringify({ at: record.at, id: record.turn_id }), 'utf8').toString('base64url');
}

function decodeCursor(text: string): { at: string; turnId: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const cursor = parsed as { at?: unknown; id?: unknown } | undefined;
  if (!cursor || typeof cursor.at !== 'string' || Number.isNaN(Date.parse(cursor.at)) || typeof cursor.id !== 'string' || !isValidId('task_id', cursor.id)) {
    throw new UserError('BAD_REQUEST', 'cursor is not one this server gave: pass next_cursor from the previous page as it is', { field: 'cursor' });
  }
  return { at: cursor.at, turnId: cursor.id };
}

/** Reads and checks the listing's query string. */
export function readTurnQuery(request: Request, tenant: string): TurnRecordQuery {
  for (const name of Object.keys(request.query)) {
    if (!(TURN_LIST_PARAMETERS as readonly string[]).includes(name)) {
      throw new UserError('BAD_REQUEST', `unknown query parameter ${JSON.stringify(name)}; the filters are ${TURN_LIST_PARAMETERS.join(', ')}`, { field: name });
    }
  }
  const query: TurnRecordQuery = { tenant, limit: DEFAULT_LIMIT };
  const outcome = oneParameter(request, 'outcome');
  if (outcome !== undefined) {
    if (!(TURN_OUTCOMES as readonly string[]).includes(outcome)) throw new UserError('BAD_REQUEST', `outcome must be one of ${TURN_OUTCOMES.join(', ')}`, { field: 'outcome' });
    query.outcome = outcome;
  }
  const agent = oneParameter(request, 'agent');
  if (agent !== undefined) {
    if (!AGENT_ID.test(agent)) throw new UserError('BAD_REQUEST', 'agent must be an agent id: letters, digits and _ . : - (1 to 128 characters)', { field: 'agent' });
    query.agent = agent;
  }
  if (request.query.session_id !== undefined) query.sessionId = requireIdParameter('session_id', request.query.session_id);
  const since = oneParameter(request, 'since');
  if (since !== undefined) {
    const time = Date.parse(since);
    if (Number.isNaN(time) || !/^\d{4}-\d{2}-\d{2}/.test(since)) throw new UserError('BAD_REQUEST', 'since must be an ISO 8601 time, e.g. 2026-01-31T08:00:00Z', { field: 'since' });
    query.since = new Date(time).toISOString();
  }
  const cursor = oneParameter(request, 'cursor');
  if (cursor !== undefined) query.before = decodeCursor(cursor);
  const limit = oneParameter(request, 'limit');
  if (limit !== undefined) {
    if (!/^\d+$/.test(limit) || Number(limit) < 1 || Number(limit) > MAX_LIMIT) throw new UserError('BAD_REQUEST', `limit must be a whole number from 1 to ${MAX_LIMIT}`, { field: 'limit' });
    query.limit = Number(limit);
  }
  return query;
}

/** `GET /v1/turns`. */
export function createTurnListHandler(options: { turns: TurnRecordReader }): RequestHandler {
  return async (request, response) => {
    const query = readTurnQuery(request, callerTenant(response));
    // One more than asked tells whether there is a next page.
    const records = await options.turns.listTurnRecords({ ...query, limit: query.limit + 1 });
    const page = records.slice(0, query.limit);
    response.setHeader('cache-control', 'no-store');
    response.json({
      turns: page.map((record) => ({
        turn_id: record.turn_id,
        session_id: record.session_id,
        user_id: shownUserId(record.user_id),
        at: record.at,
        outcome: record.outcome,
        duration_ms: record.duration_ms,
        agents: record.agents,
        usage: record.usage,
      })),
      next_cursor: records.length > query.limit ? encodeCursor(page.at(-1)!) : null,
    });
  };
}

/** `GET /v1/turns/:turn_id`. */
export function createTurnDetailHandler(options: { turns: TurnRecordReader }): RequestHandler {
  return async (request, response) => {
    const turnId = request.params.turn_id;
    if (typeof turnId !== 'string' || !isValidId('task_id', turnId)) {
      throw new UserError('BAD_REQUEST', 'turn_id may only contain letters, digits and _ . : - (1 to 200 characters)', { field: 'turn_id' });
    }
    const tenant = callerTenant(response);
    const record = await options.turns.getTurnRecord(tenant, turnId);
    // Another tenant's turn is as absent as one that never was.
    if (!record) throw new UserError('NOT_FOUND', `turn ${turnId} does not exist (or has no record: it is still running, or ended before records were kept)`);
    await nameEarlierTurns(options.turns, tenant, record);
    response.setHeader('cache-control', 'no-store');
    response.json({ ...record, user_id: shownUserId(record.user_id) });
  };
}

/** Fills `turn_id` and `words` of `user` sources in earlier turns of the session, from those turns' records. */
async function nameEarlierTurns(turns: TurnRecordReader, tenant: string, record: StoredTurnRecord): Promise<void> {
  const inputs: RecordedInput[] = [...(record.plan?.tasks ?? []).flatMap((task) => task.inputs), ...record.calls.flatMap((call) => call.inputs)];
  const unnamed = inputs.filter((input) => input.source?.kind === 'user' && input.source.turn_id === undefined);
  if (unnamed.length === 0) return;
  const earlier = await turns.listTurnRecords({ tenant, sessionId: record.session_id, before: { at: record.at, turnId: record.turn_id }, limit: SESSION_TURNS_READ });
  const byNumber = new Map<number, StoredTurnRecord>();
  for (const turn of earlier) if (turn.user_id === record.user_id && turn.session_turn !== undefined && !byNumber.has(turn.session_turn)) byNumber.set(turn.session_turn, turn);
  for (const input of unnamed) {
    const source = input.source;
    if (source?.kind !== 'user') continue;
    const turn = byNumber.get(source.turn);
    if (!turn) continue;
    source.turn_id = turn.turn_id;
    source.words = spannedWords(turn.query, source);
  }
}
