/**
 * Every HTTP route of the supervisor, described once. `GET /openapi.json` is
 * generated from this table plus the JSON Schemas the server validates with,
 * and a test walks the express router and fails when a mounted route, a query
 * parameter or a header the handlers read is missing here (or is described
 * here but not mounted). Adding a route means adding its row here.
 */

import { AUTH_ERRORS, errorResponses } from './api-error-responses.js';
import { DEPTH_HEADER } from './delegation-depth.js';
import { OPEN_OBJECT } from './openapi-components.js';
import { TURN_OUTCOMES } from '../turn/index.js';
import { EVENT_ID_PATTERN, idSchema } from './openapi-parameters.js';
import { INTEROP_ROUTES } from './api-routes-interop.js';
import type { ApiRoute } from './api-route-type.js';

export type { ApiRoute } from './api-route-type.js';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: unknown) => ({ 'application/json': { schema } });

const USER_ID_QUERY = {
  name: 'user_id',
  in: 'query',
  required: true,
  description: 'The caller; only the session owner may read it.',
  schema: idSchema('user_id'),
};
const SESSION_ID_PATH = { name: 'session_id', in: 'path', required: true, schema: idSchema('session_id') };
const USER_ID_PATH = { name: 'user_id', in: 'path', required: true, description: 'Whose profile', schema: idSchema('user_id') };

export { ANY_ROUTE_ERRORS, errorResponses } from './api-error-responses.js';

/** The route table (the one place). */
export const API_ROUTES: readonly ApiRoute[] = [
  {
    method: 'get',
    path: '/',
    operation: {
      operationId: 'chatPage',
      security: [],
      summary: 'The demo chat page (HTML)',
      tags: ['page'],
      responses: { '200': { description: 'HTML page', content: { 'text/html': { schema: { type: 'string' } } } } },
    },
  },
  {
    method: 'get',
    path: '/healthz',
    operation: {
      operationId: 'health',
      security: [],
      summary: 'Liveness',
      tags: ['operations'],
      responses: { '200': { description: 'The process is up', content: json({ type: 'object', properties: { status: { const: 'ok' } } }) } },
    },
  },
  {
    method: 'get',
    path: '/readyz',
    operation: {
      operationId: 'ready',
      security: [],
      summary: 'Readiness: a registry is loaded, storage answers, and the process has room for another turn',
      tags: ['operations'],
      responses: {
        '200': { description: 'Ready', content: json({ type: 'object', properties: { status: { const: 'ready' } } }) },
        '503': {
          description: 'NOT_READY: no registry loaded yet, storage does not answer, or shutting down; OVERLOADED (status "saturated"): the process carries supervisor.max_concurrent_turns turns',
          headers: { 'retry-after': { description: 'Seconds to wait before asking again', schema: { type: 'integer', minimum: 1 } } },
          content: json({
            type: 'object',
            properties: {
              status: { enum: ['not_ready', 'saturated'] },
              turns_in_flight: { type: 'integer', description: 'With "saturated": turns this process carries now' },
              max_concurrent_turns: { type: 'integer', description: 'With "saturated": its limit' },
              error: ref('ErrorDetail'),
            },
          }),
        },
      },
    },
  },
  {
    method: 'get',
    path: '/metrics',
    operation: {
      operationId: 'metrics',
      summary: 'Prometheus metrics (needs the API key when keys are on)',
      tags: ['operations'],
      security: [{}, { bearer: [] }],
      responses: {
        '200': { description: 'Prometheus text exposition', content: { 'text/plain': { schema: { type: 'string' } } } },
        ...errorResponses(AUTH_ERRORS),
      },
    },
  },
  {
    method: 'get',
    path: '/openapi.json',
    operation: {
      operationId: 'openApi',
      security: [],
      summary: 'This description (OpenAPI 3.1)',
      tags: ['descriptions'],
      responses: { '200': { description: 'OpenAPI document', content: json(OPEN_OBJECT) } },
    },
  },
  {
    method: 'get',
    path: '/v1/schemas/response-state.json',
    operation: {
      operationId: 'responseStateSchema',
      summary: 'JSON Schema of one ResponseState event',
      tags: ['descriptions'],
      security: [{}, { bearer: [] }],
      responses: { '200': { description: 'JSON Schema', content: { 'application/schema+json': { schema: OPEN_OBJECT } } }, ...errorResponses(AUTH_ERRORS) },
    },
  },
  {
    method: 'post',
    path: '/v1/chat',
    operation: {
      operationId: 'chat',
      summary: 'Run one turn; streams ResponseState events (SSE) or returns them at once (accept: application/json)',
      tags: ['chat'],
      security: [{}, { bearer: [] }],
      parameters: [
        {
          name: 'accept',
          in: 'header',
          required: false,
          description: '`application/json` returns the whole turn as one object; anything else streams SSE.',
          schema: { type: 'string' },
        },
        { name: 'x-trace-id', in: 'header', required: false, description: 'Trace id to use for the turn (passed on to sub-agents).', schema: { type: 'string' } },
        {
          name: 'traceparent',
          in: 'header',
          required: false,
          description: 'W3C trace context (`00-<32 hex>-<16 hex>-<2 hex>`): the turn continues this trace (its trace id becomes the turn\'s trace id and x-trace-id); every sub-agent and model request carries a child traceparent. Spans are exported when OTEL_EXPORTER_OTLP_ENDPOINT is set. One that is not valid is ignored (the turn starts a trace of its own), not refused.',
          schema: { type: 'string' },
        },
        {
          name: DEPTH_HEADER,
          in: 'header',
          required: false,
          description: 'Delegation depth: a sub-agent calling back into Switchboard passes on the value it received. At or past supervisor.max_delegation_depth the call is refused (400 DELEGATION_DEPTH_EXCEEDED). Absent = 0, a call from a user.',
          schema: { type: 'string', pattern: '^[0-9]{1,6}$' },
        },
        { name: 'x-request-id', in: 'header', required: false, description: 'Echoed back as the x-request-id response header.', schema: { type: 'string' } },
        {
          name: 'idempotency-key',
          in: 'header',
          required: false,
          description: 'A repeat with the same key (same user) within 24 h never starts a second turn: it streams the first turn\'s events (replay, then live).',
          schema: idSchema('idempotency_key'),
        },
        {
          name: 'last-event-id',
          in: 'header',
          required: false,
          description: 'With a repeated idempotency-key: `<turn_id>:<seq>` of the last event received; only the events after it are sent (204 when that was the turn\'s last). Read only with a repeated idempotency-key (a malformed one is then refused, 400); ignored otherwise.',
          schema: { type: 'string' },
        },
      ],
      requestBody: { required: true, content: json(ref('ChatRequest')) },
      responses: {
        '200': {
          description: 'The turn',
          content: {
            'text/event-stream': {
              schema: { type: 'string', description: 'Frames `data: <ResponseState JSON>` + blank line; the last event has type "done".' },
            },
            'application/json': { schema: ref('ChatAnswer') },
          },
        },
        '204': { description: 'A repeated idempotency-key whose Last-Event-ID is the turn\'s last event: nothing more to send' },
        ...errorResponses({
          BAD_REQUEST: 'Bad body or header; the message names the field',
          DELEGATION_DEPTH_EXCEEDED: `${DEPTH_HEADER} is at or past supervisor.max_delegation_depth; refused before any stream opens`,
          ...AUTH_ERRORS,
          REQUEST_TIMEOUT: 'The body did not arrive in time',
          TURN_IN_PROGRESS: 'A turn is already running on this session (multitask_strategy "reject"), or a request with this idempotency-key is still starting',
          PAYLOAD_TOO_LARGE: 'Body too large',
          UNSUPPORTED_MEDIA_TYPE: 'Body is not JSON',
          RATE_LIMITED: 'Over supervisor.rate_limit for this caller (API key, else user_id); wait retry-after seconds',
          NOT_READY: 'The server shut down before the turn could answer (accept: application/json); try again on another replica',
          OVERLOADED: 'The process carries supervisor.max_concurrent_turns turns; refused at once, before the body is read; wait retry-after seconds (or try another replica)',
        }),
      },
    },
  },
  {
    method: 'get',
    path: '/v1/sessions/:session_id/messages',
    operation: {
      operationId: 'sessionMessages',
      summary: 'The transcript of a session (owner only)',
      tags: ['sessions'],
      security: [{}, { bearer: [] }],
      parameters: [SESSION_ID_PATH, USER_ID_QUERY],
      responses: {
        '200': {
          description: 'Messages in order',
          content: json(ref('SessionMessages')),
        },
        ...errorResponses({
          BAD_REQUEST: 'Bad id',
          ...AUTH_ERRORS,
          FORBIDDEN: 'The API key is not valid, or the session belongs to another user',
          SESSION_NOT_FOUND: 'No such session',
        }),
      },
    },
  },
  {
    method: 'get',
    path: '/v1/sessions/:session_id/stream',
    operation: {
      operationId: 'sessionStream',
      summary: 'Resume a turn: replay its events after Last-Event-ID, then follow it live until done (any replica)',
      tags: ['sessions'],
      security: [{}, { bearer: [] }],
      parameters: [
        SESSION_ID_PATH,
        USER_ID_QUERY,
        {
          name: 'last-event-id',
          in: 'header',
          required: false,
          description: '`<turn_id>:<seq>` of the last event received; absent = the latest turn from its start.',
          schema: { type: 'string', pattern: EVENT_ID_PATTERN },
        },
      ],
      responses: {
        '200': { description: 'The events', content: { 'text/event-stream': { schema: { type: 'string', description: 'Frames `id: <turn_id>:<seq>` + `data: <ResponseState JSON>`.' } } } },
        '204': { description: 'Nothing follows Last-Event-ID: it is at or past the turn\'s done event, or the turn ended with nothing after it (a browser EventSource stops reconnecting)' },
        ...errorResponses({
          BAD_REQUEST: 'Bad id or Last-Event-ID',
          ...AUTH_ERRORS,
          FORBIDDEN: 'The API key is not valid, or the session belongs to another user',
          SESSION_NOT_FOUND: 'No such session',
          NOT_FOUND: 'No turn or event with this id in the session',
        }),
      },
    },
  },
  {
    method: 'post',
    path: '/v1/sessions/:session_id/cancel',
    operation: {
      operationId: 'sessionCancel',
      summary: "Cancel the session's running turn (any replica): its stream ends with a cancelled final and done",
      tags: ['sessions'],
      security: [{}, { bearer: [] }],
      parameters: [SESSION_ID_PATH, USER_ID_QUERY],
      responses: {
        '202': { description: 'Cancel requested', content: json({ type: 'object', required: ['turn_id'], properties: { status: { const: 'cancelling' }, turn_id: { type: 'string' } } }) },
        ...errorResponses({
          BAD_REQUEST: 'Bad id',
          ...AUTH_ERRORS,
          FORBIDDEN: 'The API key is not valid, or the session belongs to another user',
          SESSION_NOT_FOUND: 'No such session',
          NOT_FOUND: 'No turn is running on this session',
        }),
      },
    },
  },
  {
    method: 'get',
    path: '/v1/users/:user_id/profile',
    operation: {
      operationId: 'profileRead',
      summary: "The user's long-term profile facts (owner only)",
      tags: ['profiles'],
      security: [{}, { bearer: [] }],
      parameters: [USER_ID_PATH, { ...USER_ID_QUERY, description: 'The caller; must equal the path user.' }],
      responses: {
        '200': {
          description: 'Facts learned from completed turns, with source and time',
          content: json(ref('Profile')),
        },
        ...errorResponses({ BAD_REQUEST: 'Bad id', ...AUTH_ERRORS, FORBIDDEN: 'The API key is not valid, or the caller is another user' }),
      },
    },
  },
  {
    method: 'delete',
    path: '/v1/users/:user_id/profile',
    operation: {
      operationId: 'profileDelete',
      summary: "Deletes the user's profile; with all=true also every session of the user",
      tags: ['profiles'],
      security: [{}, { bearer: [] }],
      parameters: [
        USER_ID_PATH,
        { ...USER_ID_QUERY, description: 'The caller; must equal the path user.' },
        { name: 'all', in: 'query', required: false, description: 'true: also delete every session of the user', schema: { type: 'string', enum: ['true', 'false'] } },
      ],
      responses: {
        '200': {
          description: 'What was deleted',
          content: json(ref('ProfileDeleted')),
        },
        ...errorResponses({ BAD_REQUEST: 'Bad id or all', ...AUTH_ERRORS, FORBIDDEN: 'The API key is not valid, or the caller is another user' }),
      },
    },
  },
  {
    method: 'get',
    path: '/v1/agents',
    operation: {
      operationId: 'agents',
      summary: 'The live registry: public cards with health, version, loaded_at, last_error, warnings',
      tags: ['registry'],
      security: [{}, { bearer: [] }],
      responses: {
        '200': {
          description: 'Registry snapshot',
          content: json(ref('RegistrySnapshot')),
        },
        ...errorResponses(AUTH_ERRORS),
      },
    },
  },
  {
    method: 'get',
    path: '/v1/turns',
    operation: {
      operationId: 'listTurns',
      summary: 'Recent finished turns of the caller\'s tenant, newest first (admin keys; loopback only without keys)',
      description:
        'With SWITCHBOARD_API_KEYS set, only keys also in SWITCHBOARD_ADMIN_KEYS, within their tenant; with no keys configured, only requests from a loopback address. Personal data is masked as in transcripts.',
      tags: ['console'],
      security: [{}, { bearer: [] }],
      parameters: [
        { name: 'outcome', in: 'query', required: false, description: 'Only turns with this outcome word.', schema: { type: 'string', enum: [...TURN_OUTCOMES] } },
        { name: 'agent', in: 'query', required: false, description: 'Only turns that planned or called this agent.', schema: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_.:-]{1,128}$' } },
        { name: 'session_id', in: 'query', required: false, description: 'Only turns of this session.', schema: idSchema('session_id') },
        { name: 'since', in: 'query', required: false, description: 'Only turns started at or after this ISO 8601 time.', schema: { type: 'string', format: 'date-time', minLength: 1 } },
        { name: 'cursor', in: 'query', required: false, description: 'next_cursor of the previous page, as it is (any other value is refused).', schema: { type: 'string', minLength: 1 } },
        { name: 'limit', in: 'query', required: false, description: 'Turns per page (1 to 100, default 20).', schema: { type: 'integer', minimum: 1, maximum: 100 } },
      ],
      responses: {
        '200': { description: 'One page of turns', content: json(ref('TurnList')) },
        ...errorResponses({ BAD_REQUEST: 'A filter, the cursor or the limit is invalid (details.field names it)', ...AUTH_ERRORS, FORBIDDEN: 'Not an admin key, or (without keys) not a loopback address' }),
      },
    },
  },
  {
    method: 'get',
    path: '/v1/turns/:turn_id',
    operation: {
      operationId: 'getTurn',
      summary: 'One finished turn: stages with timings, the plan, each sub-agent call with its inputs and their sources, the verdict and the answer',
      tags: ['console'],
      security: [{}, { bearer: [] }],
      parameters: [{ name: 'turn_id', in: 'path', required: true, schema: idSchema('task_id') }],
      responses: {
        '200': { description: 'The turn\'s record', content: json(ref('TurnDetail')) },
        ...errorResponses({
          BAD_REQUEST: 'The turn id is malformed',
          ...AUTH_ERRORS,
          FORBIDDEN: 'Not an admin key, or (without keys) not a loopback address',
          NOT_FOUND: 'No finished turn with this id in the caller\'s tenant',
        }),
      },
    },
  },
  {
    method: 'get',
    path: '/console',
    operation: {
      operationId: 'consolePage',
      security: [],
      summary: 'The console (HTML): registry, agents\' health, recent turns, one turn\'s waterfall and plan, usage',
      description: 'The page reads /v1/agents and /v1/turns with the admin key it is given (`?key=` or its key field). With no API keys configured it is served to loopback addresses only.',
      tags: ['page'],
      responses: {
        '200': { description: 'HTML page', content: { 'text/html': { schema: { type: 'string' } } } },
        ...errorResponses({ FORBIDDEN: 'No API keys configured and the request is not from a loopback address' }),
      },
    },
  },
  ...INTEROP_ROUTES,
];

/** `/v1/sessions/:session_id/messages` → `/v1/sessions/{session_id}/messages`. */
export function toOpenApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}
