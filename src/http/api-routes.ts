/**
 * Every HTTP route of the supervisor, described once. `GET /openapi.json` is
 * generated from this table plus the JSON Schemas the server validates with,
 * and a test walks the express router and fails when a mounted route, a query
 * parameter or a header the handlers read is missing here (or is described
 * here but not mounted). Adding a route means adding its row here.
 */

/** One route: express path (`:param` form), method, and its OpenAPI operation object. */
export interface ApiRoute {
  readonly method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  readonly path: string;
  readonly operation: Readonly<Record<string, unknown>>;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: unknown) => ({ 'application/json': { schema } });
const error = (description: string) => ({ description, content: json(ref('Error')) });

const USER_ID_QUERY = {
  name: 'user_id',
  in: 'query',
  required: true,
  description: 'The caller; only the session owner may read it.',
  schema: { type: 'string' },
};
const SESSION_ID_PATH = { name: 'session_id', in: 'path', required: true, schema: { type: 'string' } };
const USER_ID_PATH = { name: 'user_id', in: 'path', required: true, description: 'Whose profile', schema: { type: 'string' } };

/** The route table (the one place). */
export const API_ROUTES: readonly ApiRoute[] = [
  {
    method: 'get',
    path: '/',
    operation: {
      operationId: 'chatPage',
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
      summary: 'Readiness: a registry is loaded and storage answers',
      tags: ['operations'],
      responses: {
        '200': { description: 'Ready', content: json({ type: 'object', properties: { status: { const: 'ready' } } }) },
        '503': { description: 'Not ready', content: json({ type: 'object', properties: { status: { const: 'not_ready' }, error: ref('ErrorDetail') } }) },
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
        '401': error('API key missing or wrong'),
      },
    },
  },
  {
    method: 'get',
    path: '/openapi.json',
    operation: {
      operationId: 'openApi',
      summary: 'This description (OpenAPI 3.1)',
      tags: ['descriptions'],
      responses: { '200': { description: 'OpenAPI document', content: json({ type: 'object' }) } },
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
      responses: { '200': { description: 'JSON Schema', content: { 'application/schema+json': { schema: { type: 'object' } } } }, '401': error('API key missing or wrong') },
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
        { name: 'x-request-id', in: 'header', required: false, description: 'Echoed back as the x-request-id response header.', schema: { type: 'string' } },
        {
          name: 'idempotency-key',
          in: 'header',
          required: false,
          description: 'A repeat with the same key (same user) within 24 h never starts a second turn: it streams the first turn\'s events (replay, then live).',
          schema: { type: 'string', minLength: 1, maxLength: 200 },
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
            'application/json': {
              schema: {
                type: 'object',
                required: ['session_id', 'final_answer', 'events'],
                properties: { session_id: { type: 'string' }, final_answer: { type: 'string' }, events: { type: 'array', items: ref('ResponseState') } },
              },
            },
          },
        },
        '400': error('Bad body; the message names the field'),
        '401': error('API key missing or wrong'),
        '409': error('A turn is already running on this session'),
        '408': error('The body did not arrive in time'),
        '413': error('Body too large'),
        '415': error('Body is not JSON'),
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
          content: json({ type: 'object', required: ['session_id', 'messages'], properties: { session_id: { type: 'string' }, messages: { type: 'array', items: { type: 'object' } } } }),
        },
        '400': error('Bad id'),
        '401': error('API key missing or wrong'),
        '403': error('The session belongs to another user'),
        '404': error('No such session'),
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
          schema: { type: 'string' },
        },
      ],
      responses: {
        '200': { description: 'The events', content: { 'text/event-stream': { schema: { type: 'string', description: 'Frames `id: <turn_id>:<seq>` + `data: <ResponseState JSON>`.' } } } },
        '400': error('Bad id or Last-Event-ID'),
        '401': error('API key missing or wrong'),
        '403': error('The session belongs to another user'),
        '404': error('No such session, turn or event id'),
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
        '400': error('Bad id'),
        '401': error('API key missing or wrong'),
        '403': error('The session belongs to another user'),
        '404': error('No turn is running on this session'),
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
          content: json({ type: 'object', required: ['user_id', 'facts'], properties: { user_id: { type: 'string' }, facts: { type: 'array', items: { type: 'object' } } } }),
        },
        '400': error('Bad id'),
        '401': error('API key missing or wrong'),
        '403': error('Another user'),
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
          content: json({ type: 'object', required: ['user_id', 'deleted'], properties: { user_id: { type: 'string' }, deleted: { type: 'object' } } }),
        },
        '400': error('Bad id or all'),
        '401': error('API key missing or wrong'),
        '403': error('Another user'),
      },
    },
  },
  {
    method: 'get',
    path: '/v1/agents',
    operation: {
      operationId: 'agents',
      summary: 'The live registry: public cards with health, version, loaded_at, last_error',
      tags: ['registry'],
      security: [{}, { bearer: [] }],
      responses: {
        '200': {
          description: 'Registry snapshot',
          content: json({
            type: 'object',
            required: ['version', 'loaded_at', 'agents'],
            properties: {
              version: { type: 'string' },
              loaded_at: { type: 'string' },
              last_error: { type: ['object', 'null'] },
              agents: { type: 'array', items: { type: 'object' } },
            },
          }),
        },
        '401': error('API key missing or wrong'),
      },
    },
  },
];

/** `/v1/sessions/:session_id/messages` → `/v1/sessions/{session_id}/messages`. */
export function toOpenApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}
