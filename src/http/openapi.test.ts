/**
 * The API description must match the server: every mounted route is described
 * and every described route is mounted, every query parameter and header a
 * handler reads is described (named inline or through a constant), every error
 * code the HTTP layer throws is described, real error answers of the chat route
 * carry a status and code its description lists, the document passes a
 * standard OpenAPI validator,
 * and real events of real turns meet the ResponseState schema (with unknown
 * fields treated as drift).
 */
import { readdirSync, readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv } from 'ajv';
import type { Express } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSwitchboard, type DemoSwitchboard } from '../../test/support/demo-switchboard.js';
import type { TestSwitchboard } from '../../test/support/switchboard-harness.js';
import { sampleRegistry, startTestSwitchboard } from '../../test/support/switchboard-harness.js';
import { ANY_ROUTE_ERRORS, API_ROUTES, toOpenApiPath } from './api-routes.js';
import { chatRequestSchema } from './chat-request.js';
import { readProjectSchema } from './openapi-document.js';

interface RouterLayer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: RouterLayer[] };
  rawPath?: unknown;
  slash?: boolean;
}

/** `METHOD path` of every route mounted on an express app (catch-all `.all()` handlers left out). */
function mountedRoutes(app: Express): string[] {
  const found: string[] = [];
  const walk = (stack: RouterLayer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        for (const [method, on] of Object.entries(layer.route.methods)) {
          if (on && method !== '_all') found.push(`${method.toUpperCase()} ${prefix}${layer.route.path}`);
        }
      } else if (layer.handle?.stack) {
        const path = typeof layer.rawPath === 'string' && !layer.slash ? layer.rawPath : '';
        walk(layer.handle.stack, prefix + path);
      }
    }
  };
  walk((app as unknown as { router: { stack: RouterLayer[] } }).router.stack, '');
  return found.sort();
}

/** A copy of a schema where objects with declared properties allow no others (drift shows as an error). */
function strictVariant(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strictVariant);
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) copy[key] = strictVariant(value);
  if (copy.properties && copy.additionalProperties === undefined) copy.additionalProperties = false;
  return copy;
}

interface DescribedResponse {
  description: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema?: { properties?: { error?: { properties?: { code?: { enum?: string[] } } } } } }>;
}
interface OpenApi {
  paths: Record<string, Record<string, { responses: Record<string, DescribedResponse> }>>;
  components: { responses: Record<string, DescribedResponse> };
}

/** The error codes one described response lists in its schema. */
function codesOf(response: DescribedResponse): string[] {
  return response.content?.['application/json']?.schema?.properties?.error?.properties?.code?.enum ?? [];
}

/** Every error code an operation's responses list. */
function documentedCodes(operation: { responses: Record<string, DescribedResponse> }): string[] {
  return Object.values(operation.responses).flatMap(codesOf);
}

/** The non-test sources of the HTTP layer. */
function httpSources(): string[] {
  const directory = new URL('./', import.meta.url);
  return readdirSync(directory)
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
    .map((file) => readFileSync(new URL(file, directory), 'utf8'));
}

/** `NAME → value` of every string constant declared in the given source. */
function stringConstants(text: string): Map<string, string> {
  return new Map([...text.matchAll(/const ([A-Z][A-Z0-9_]*) = ['"]([^'"]+)['"]/g)].map((match) => [match[1]!, match[2]!]));
}

let running: DemoSwitchboard;
let switchboard: TestSwitchboard;
beforeAll(async () => {
  running = await startDemoSwitchboard({ chatPage: '<!doctype html><title>chat</title>', consolePage: '<!doctype html><title>console</title>' });
  switchboard = running.board;
});
afterAll(() => running?.close());

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const response = await fetch(`${switchboard.url}/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as { openapi: string };
    expect(document.openapi).toBe('3.1.0');
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeTruthy();
  });

  it('describes exactly the routes the server mounts', async () => {
    const document = (await (await fetch(`${switchboard.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const described = Object.entries(document.paths)
      .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    const mounted = mountedRoutes(switchboard.switchboard.app).map((route) => route.replace(/ (.*)$/, (_, path: string) => ` ${toOpenApiPath(path)}`));
    expect(described).toEqual(mounted);
  });

  it('describes the chat body with the schema the validator compiles', async () => {
    const document = (await (await fetch(`${switchboard.url}/openapi.json`)).json()) as { components: { schemas: Record<string, unknown> } };
    expect(document.components.schemas.ChatRequest).toEqual(chatRequestSchema(4000));
  });

  it('describes every query parameter and header the handlers read, by literal or by constant', () => {
    const standard = new Set(['content-type', 'content-length', 'transfer-encoding', 'authorization', 'user-agent', 'host']);
    const described = new Set(
      API_ROUTES.flatMap((route) => ((route.operation.parameters as { name: string }[] | undefined) ?? []).map((parameter) => parameter.name.toLowerCase())),
    );
    const texts = httpSources();
    const constants = stringConstants(texts.join('\n'));
    const read = new Set<string>();
    const unresolved: string[] = [];
    for (const text of texts) {
      for (const match of text.matchAll(/request\.(?:query\.([a-z_]+)|headers\[([^\]]+)\]|headers\.([a-z_]+)|(?:get|header)\(([^)]+)\))/g)) {
        const literal = match[1] ?? match[3];
        if (literal) {
          read.add(literal.toLowerCase());
          continue;
        }
        const expression = (match[2] ?? match[4])!.trim();
        const quoted = /^['"]([a-z-]+)['"]$/i.exec(expression)?.[1];
        const value = quoted ?? constants.get(expression);
        if (value === undefined) unresolved.push(expression);
        else read.add(value.toLowerCase());
      }
      // A header name kept in a constant counts as read even where it is read indirectly.
      for (const match of text.matchAll(/const [A-Z_]*HEADER[A-Z_]* = ['"]([a-z-]+)['"]/g)) read.add(match[1]!);
    }
    const undescribed = [...read].filter((name) => !standard.has(name) && !described.has(name));
    expect(read.size).toBeGreaterThan(2);
    expect(read).toContain('x-switchboard-depth');
    expect(unresolved).toEqual([]);
    expect(undescribed).toEqual([]);
  });

  it('describes every error code the HTTP layer throws, on a route or as an any-route answer', async () => {
    const document = (await (await fetch(`${switchboard.url}/openapi.json`)).json()) as OpenApi;
    const documented = new Set([...Object.values(document.paths).flatMap((operations) => Object.values(operations).flatMap(documentedCodes)), ...Object.keys(document.components.responses)]);
    const thrown = new Set(httpSources().flatMap((text) => [...text.matchAll(/(?:UserError|SystemError)\('([A-Z_]+)'/g)].map((match) => match[1]!)));
    expect(thrown.size).toBeGreaterThan(5);
    expect([...thrown].filter((code) => !documented.has(code))).toEqual([]);
    for (const code of Object.keys(ANY_ROUTE_ERRORS)) expect(document.components.responses).toHaveProperty(code);
  });
});

describe('POST /v1/chat error answers', () => {
  let guarded: TestSwitchboard;
  beforeAll(async () => {
    const registryYaml = sampleRegistry('agents_config.yaml', {}).replace(
      /^supervisor:\n/m,
      'supervisor:\n  max_delegation_depth: 2\n  rate_limit: { per_user_per_minute: 1, burst: 0 }\n',
    );
    guarded = await startTestSwitchboard({ registryYaml, apiKeys: ['key-one', 'key-two'] });
  });
  afterAll(() => guarded?.close());

  it('answers only with status and code pairs the document lists for the route', async () => {
    const document = (await (await fetch(`${guarded.url}/openapi.json`)).json()) as OpenApi;
    const responses = document.paths['/v1/chat']!.post!.responses;
    const post = (headers: Record<string, string>, body: unknown = { query: 'hi', user_id: 'u1' }) =>
      fetch(`${guarded.url}/v1/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    const key = { authorization: 'Bearer key-one' };
    const answers = [
      ['UNAUTHORIZED', await post({})],
      ['FORBIDDEN', await post({ authorization: 'Bearer wrong-key' })],
      ['DELEGATION_DEPTH_EXCEEDED', await post({ ...key, 'x-switchboard-depth': '2' })],
      ['BAD_REQUEST', await post({ ...key, 'x-switchboard-depth': 'two' })],
      ['BAD_REQUEST', await post(key, { user_id: 'u1' })],
      ['UNSUPPORTED_MEDIA_TYPE', await post({ ...key, 'content-type': 'text/plain' }, 'hi')],
      ['PAYLOAD_TOO_LARGE', await post(key, { query: 'x'.repeat(70 * 1024), user_id: 'u1' })],
    ] as const;
    // The limit is one request a minute per key: a fresh key's second turn is refused.
    const other = { authorization: 'Bearer key-two' };
    const first = await post(other);
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    const limited = await post(other);
    for (const [expected, response] of [...answers, ['RATE_LIMITED', limited] as const]) {
      const body = (await response.json()) as { error: { code: string } };
      expect(body.error.code, `${response.status}`).toBe(expected);
      const described = responses[String(response.status)];
      expect(described, `${expected} answered ${response.status}, which /v1/chat does not describe`).toBeDefined();
      expect(documentedCodes({ responses: { [response.status]: described! } })).toContain(expected);
      expect(described!.description).toContain(expected);
    }
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(responses['429']!.headers).toHaveProperty('retry-after');
    for (const code of ['NOT_READY', 'TURN_IN_PROGRESS']) expect(Object.values(responses).flatMap((response) => codesOf(response))).toContain(code);
  });
});

describe('GET /v1/schemas/response-state.json', () => {
  it('serves the schema, and real events of real turns meet it with no undescribed field', async () => {
    const response = await fetch(`${switchboard.url}/v1/schemas/response-state.json`);
    expect(response.status).toBe(200);
    const served = await response.json();
    expect(served).toEqual(readProjectSchema('response-state.schema.json'));
    const validate = new Ajv({ allErrors: true, strict: true }).compile(strictVariant(served) as object);

    const turns = [
      await switchboard.chat('帮我订北京的酒店，明天入住，再告诉我北京明天的天气', { sessionId: 'schema-1' }),
      await switchboard.chat('帮我订酒店', { sessionId: 'schema-2' }),
      await switchboard.chat('你好', { sessionId: 'schema-3' }),
    ];
    const events = turns.flat();
    const stages = new Set(events.map((event) => event.metadata.stage));
    for (const stage of ['intent_start', 'plan_done', 'agent_start', 'agent_stream', 'agent_done', 'final', 'done']) expect(stages).toContain(stage);
    expect(events.some((event) => (event.metadata.semantic_info ?? []).length > 0)).toBe(true);
    for (const event of events) {
      expect(validate(event), `${event.metadata.stage}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });
});
