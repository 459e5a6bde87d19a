/**
 * The route table's interop rows (`api-routes.ts` spreads them in): the A2A
 * Agent Card, the A2A JSON-RPC endpoint and the AG-UI stream.
 */
import { AGUI_MEDIA_TYPE } from '@ag-ui/encoder';
import { AUTH_ERRORS, errorResponses } from './api-error-responses.js';
import type { ApiRoute } from './api-route-type.js';
import { DEPTH_HEADER } from './delegation-depth.js';
import { AGUI_RUN_INPUT_SCHEMA } from './openapi-parameters.js';

const json = (schema: unknown) => ({ 'application/json': { schema } });

/** The A2A and AG-UI routes. */
export const INTEROP_ROUTES: readonly ApiRoute[] = [
  {
    method: 'get',
    path: '/.well-known/agent-card.json',
    operation: {
      operationId: 'agentCard',
      summary: 'The A2A v1.0 Agent Card of Switchboard: the JSON-RPC interface at /a2a, streaming, one skill per enabled agent (follows hot reloads)',
      description: 'A v1.0 Agent Card by default; with an `A2A-Version: 0.3` header the card is served in its v0.3 shape.',
      tags: ['interop'],
      security: [],
      parameters: [{ name: 'a2a-version', in: 'header', required: false, description: '`0.3` for the v0.3 shape; absent or `1.0` for the v1.0 card.', schema: { type: 'string' } }],
      responses: { '200': { description: 'The Agent Card', content: json({ type: 'object', additionalProperties: true }) } },
    },
  },
  {
    method: 'post',
    path: '/a2a',
    operation: {
      operationId: 'a2a',
      summary: 'A2A JSON-RPC binding: SendMessage, SendStreamingMessage, GetTask, CancelTask (and the v0.3 names message/send, message/stream, tasks/get, tasks/cancel)',
      description:
        'Each message runs one ordinary turn; contextId is the session. Missing keys end the task in input-required with the keys, descriptions and widget ids in a data part; the next message in the same context completes it. A repeated messageId never runs a second turn. Body problems are JSON-RPC errors (HTTP 200, id null): -32700 for an empty body or one that is not JSON, -32600 for JSON that is not one request object, -32005 for a content type other than JSON (a body without one is read as JSON).',
      tags: ['interop'],
      security: [{}, { bearer: [] }],
      parameters: [
        { name: 'a2a-version', in: 'header', required: false, description: '`1.0` (v1.0 method names); absent or `0.3` for v0.3 clients.', schema: { type: 'string' } },
        { name: DEPTH_HEADER, in: 'header', required: false, description: 'Delegation depth, as on /v1/chat.', schema: { type: 'string', pattern: '^[0-9]{1,6}$' } },
      ],
      requestBody: { required: true, content: json({ type: 'object', description: 'A JSON-RPC 2.0 request', additionalProperties: true }) },
      responses: {
        '200': {
          description: 'A JSON-RPC response, or for the streaming methods an event stream of JSON-RPC responses',
          content: { ...json({ type: 'object', additionalProperties: true }), 'text/event-stream': { schema: { type: 'string' } } },
        },
        ...errorResponses({
          BAD_REQUEST: 'Bad header (a body that is not JSON gets the JSON-RPC error -32700 instead)',
          DELEGATION_DEPTH_EXCEEDED: `${DEPTH_HEADER} is at or past supervisor.max_delegation_depth; refused before any stream opens`,
          ...AUTH_ERRORS,
          REQUEST_TIMEOUT: 'The body did not arrive in time',
          PAYLOAD_TOO_LARGE: 'Body too large',
          RATE_LIMITED: 'Over supervisor.rate_limit for this caller (API key, else the message\'s metadata.user_id); wait retry-after seconds',
          OVERLOADED: 'The process carries supervisor.max_concurrent_turns turns; refused at once with this REST error body (not a JSON-RPC one), before the body is read; wait retry-after seconds (or try another replica)',
        }),
      },
    },
  },
  {
    method: 'post',
    path: '/v1/agui',
    operation: {
      operationId: 'agui',
      summary: 'One turn as an AG-UI event stream (RunAgentInput in; RUN_STARTED, STEP_*, TEXT_MESSAGE_*, CUSTOM semantic_info / confirmation, RUN_FINISHED or RUN_ERROR out)',
      description:
        'threadId is the session, the last user message the query, forwardedProps.user_id the user (required unless API keys are on: the key\'s tenant then stands for the user); forwardedProps.confirm / reject confirm or reject held tasks.',
      tags: ['interop'],
      security: [{}, { bearer: [] }],
      parameters: [
        {
          name: 'accept',
          in: 'header',
          required: false,
          description: `text/event-stream (the default, also for */* or no header), or ${AGUI_MEDIA_TYPE} when preferred: AG-UI protobuf frames, each a 4-byte big-endian length and the event.`,
          schema: { type: 'string' },
        },
        { name: DEPTH_HEADER, in: 'header', required: false, description: 'Delegation depth, as on /v1/chat.', schema: { type: 'string', pattern: '^[0-9]{1,6}$' } },
      ],
      requestBody: { required: true, content: json(AGUI_RUN_INPUT_SCHEMA) },
      responses: {
        '200': {
          description: 'AG-UI events',
          content: {
            'text/event-stream': { schema: { type: 'string', description: 'Frames `data: <AG-UI event JSON>` + blank line.' } },
            [AGUI_MEDIA_TYPE]: { schema: { type: 'string', contentMediaType: AGUI_MEDIA_TYPE, description: 'Length-prefixed AG-UI protobuf events (accept asked for it).' } },
          },
        },
        ...errorResponses({
          BAD_REQUEST: 'Not a valid RunAgentInput, no user message, or no forwardedProps.user_id; the message names the field',
          DELEGATION_DEPTH_EXCEEDED: `${DEPTH_HEADER} is at or past supervisor.max_delegation_depth`,
          ...AUTH_ERRORS,
          REQUEST_TIMEOUT: 'The body did not arrive in time',
          TURN_IN_PROGRESS: 'A turn is already running on this session',
          PAYLOAD_TOO_LARGE: 'Body too large',
          UNSUPPORTED_MEDIA_TYPE: 'Body is not JSON',
          RATE_LIMITED: 'Over supervisor.rate_limit for this caller (API key, else forwardedProps.user_id); wait retry-after seconds',
          OVERLOADED: 'The process carries supervisor.max_concurrent_turns turns; refused at once, before the body is read; wait retry-after seconds (or try another replica)',
        }),
      },
    },
  },
];
