/**
 * Builds the OpenAPI 3.1 document of `GET /openapi.json` from the route table
 * (`api-routes.ts`) and the JSON Schemas the server itself uses: the chat body
 * schema its validator compiles, and `schemas/*.schema.json` (events, and the
 * sub-agent request and reply for reference).
 */
import { readFileSync } from 'node:fs';
import { ERROR_CATALOGUE, type ErrorCode } from '../errors.js';
import { readResponseStateSchema } from '../events/index.js';
import { packageFileUrl, packageVersion } from '../util/index.js';
import { ANY_ROUTE_ERRORS, API_ROUTES, errorResponses, toOpenApiPath, type ApiRoute } from './api-routes.js';
import { chatRequestSchema } from './chat-request.js';
import { ERROR_DETAILS, RESPONSE_SCHEMAS } from './openapi-components.js';
import { aguiRunInputSchema } from './openapi-parameters.js';

/** Reads one file of `schemas/` as a plain object. */
export function readProjectSchema(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(packageFileUrl(`schemas/${name}`), 'utf8')) as Record<string, unknown>;
}

/**
 * A schema file made fit for `components/schemas`: `$schema`/`$id` dropped and
 * its `definitions` hoisted next to it, references rewritten to match.
 */
function asComponent(schema: Record<string, unknown>): { main: Record<string, unknown>; extra: Record<string, unknown> } {
  const text = JSON.stringify(schema).replaceAll('"#/definitions/', '"#/components/schemas/');
  const { $schema: _schema, $id: _id, definitions, ...main } = JSON.parse(text) as Record<string, unknown>;
  return { main, extra: (definitions as Record<string, unknown> | undefined) ?? {} };
}

/** Options of the document. */
export interface OpenApiOptions {
  /** Shown in `info.version`; default the package version. */
  version?: string;
  maxQueryChars?: number;
  /** API keys are on: `forwardedProps.user_id` of `POST /v1/agui` may then be left out. Default true. */
  keysOn?: boolean;
  routes?: readonly ApiRoute[];
}

/** The whole OpenAPI 3.1 document. */
export function buildOpenApiDocument(options: OpenApiOptions): Record<string, unknown> {
  const responseState = asComponent(readResponseStateSchema());
  const agentRequest = asComponent(readProjectSchema('agent-request.schema.json'));
  const agentReply = asComponent(readProjectSchema('agent-reply.schema.json'));
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of options.routes ?? API_ROUTES) {
    const key = toOpenApiPath(route.path);
    paths[key] = { ...paths[key], [route.method]: route.operation };
  }
  // The AG-UI body as this server checks it: its query length, and whether the user may be left out.
  const agui = paths['/v1/agui']?.post as Record<string, unknown> | undefined;
  if (agui) {
    const schema = aguiRunInputSchema(options.maxQueryChars, options.keysOn ?? true);
    paths['/v1/agui'] = { ...paths['/v1/agui'], post: { ...agui, requestBody: { required: true, content: { 'application/json': { schema } } } } };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Switchboard',
      version: options.version ?? packageVersion(),
      description: 'Config-driven supervisor for multi-agent systems: chat turns as Server-Sent Events, sessions, the live agent registry.',
    },
    servers: [{ url: '/', description: 'The server that serves this document' }],
    paths: withAnyRouteResponses(paths),
    webhooks: subAgentWebhooks(),
    components: {
      schemas: {
        ChatRequest: chatRequestSchema(options.maxQueryChars),
        ResponseState: responseState.main,
        ...responseState.extra,
        AgentRequest: agentRequest.main,
        AgentReply: agentReply.main,
        ...RESPONSE_SCHEMAS,
        ErrorDetail: {
          type: 'object',
          required: ['code', 'message'],
          properties: { code: { type: 'string', enum: Object.keys(ERROR_CATALOGUE) }, message: { type: 'string' }, details: ERROR_DETAILS },
        },
        Error: { type: 'object', required: ['error'], properties: { error: { $ref: '#/components/schemas/ErrorDetail' } } },
      },
      responses: anyRouteResponses(),
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'Needed on /v1 routes when SWITCHBOARD_API_KEYS is set.' },
      },
    },
  };
}

/**
 * Every operation also lists the answers any route may give (405, 414, 431,
 * 500) by reference to `components.responses`, so a client sees them where it
 * looks; a status the route describes itself is left as it is.
 */
function withAnyRouteResponses(paths: Record<string, Record<string, unknown>>): Record<string, Record<string, unknown>> {
  const shared = (Object.keys(ANY_ROUTE_ERRORS) as ErrorCode[]).filter((code) => code !== 'NOT_FOUND');
  const result: Record<string, Record<string, unknown>> = {};
  for (const [path, operations] of Object.entries(paths)) {
    result[path] = {};
    for (const [method, operation] of Object.entries(operations)) {
      const described = operation as { responses: Record<string, unknown> };
      const responses = { ...described.responses };
      for (const code of shared) responses[String(ERROR_CATALOGUE[code].httpStatus)] ??= { $ref: `#/components/responses/${code}` };
      result[path][method] = { ...described, responses };
    }
  }
  return result;
}

/** What Switchboard sends to a sub-agent (docs/api.md#sub-agent-wire-protocol), described as an outgoing call so agent authors can generate types from it too. */
function subAgentWebhooks(): Record<string, unknown> {
  return {
    subAgentCall: {
      post: {
        operationId: 'subAgentCall',
        summary: "Switchboard's request to a sub-agent endpoint (http-json; http-sse answers the same envelope as the single `result` event)",
        tags: ['sub-agents'],
        security: [],
        parameters: [
          { name: 'x-trace-id', in: 'header', required: true, description: 'The turn\'s trace id (also `trace_id` in the body).', schema: { type: 'string' } },
          { name: 'traceparent', in: 'header', required: false, description: 'W3C trace context: a child of the turn\'s span.', schema: { type: 'string' } },
          { name: 'x-request-id', in: 'header', required: true, schema: { type: 'string' } },
          { name: 'x-switchboard-depth', in: 'header', required: true, description: 'Delegation depth, to pass on when calling back into Switchboard.', schema: { type: 'string' } },
        ],
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/AgentRequest' } } } },
        responses: {
          '200': { description: 'The reply envelope', content: { 'application/json': { schema: { $ref: '#/components/schemas/AgentReply' } } } },
          '400': { description: 'The agent refuses the request (not retried)' },
        },
      },
    },
  };
}

/** `components.responses`: one entry per code any route may answer with (unknown path, bad method, a bug…). */
function anyRouteResponses(): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const [code, text] of Object.entries(ANY_ROUTE_ERRORS) as [ErrorCode, string][]) {
    responses[code] = errorResponses({ [code]: text })[String(ERROR_CATALOGUE[code].httpStatus)];
  }
  return responses;
}
