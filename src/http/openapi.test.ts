/**
 * The API description must match the server: every mounted route is described
 * and every described route is mounted, every query parameter and header a
 * handler reads is described, the document passes a standard OpenAPI validator,
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
import { API_ROUTES, toOpenApiPath } from './api-routes.js';
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

let running: DemoSwitchboard;
let switchboard: TestSwitchboard;
beforeAll(async () => {
  running = await startDemoSwitchboard({ chatPage: '<!doctype html><title>chat</title>' });
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

  it('describes every query parameter and header the handlers read', () => {
    const standard = new Set(['content-type', 'content-length', 'transfer-encoding', 'authorization', 'user-agent', 'host']);
    const described = new Set(
      API_ROUTES.flatMap((route) => ((route.operation.parameters as { name: string }[] | undefined) ?? []).map((parameter) => parameter.name.toLowerCase())),
    );
    const directory = new URL('./', import.meta.url);
    const read = new Set<string>();
    for (const file of readdirSync(directory).filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))) {
      const text = readFileSync(new URL(file, directory), 'utf8');
      for (const match of text.matchAll(/request\.(?:query\.([a-z_]+)|headers\[['"]([a-z-]+)['"]\]|headers\.([a-z_]+)|(?:get|header)\(['"]([a-z-]+)['"]\))/g)) {
        read.add((match[1] ?? match[2] ?? match[3] ?? match[4])!.toLowerCase());
      }
    }
    const undescribed = [...read].filter((name) => !standard.has(name) && !described.has(name));
    expect(read.size).toBeGreaterThan(2);
    expect(undescribed).toEqual([]);
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
