/**
 * A typed client generated from `GET /openapi.json` compiles against what the
 * server really answers: types are generated with openapi-typescript (its
 * programmatic API), then bodies recorded from a real server run (chat turns
 * as JSON and as events, the registry, a transcript, a profile and its
 * deletion, health, and error answers with their `details`) are written as
 * `<body> satisfies <generated type>` and type-checked with the TypeScript
 * compiler API: no diagnostic allowed, and a body that does not fit must give
 * one. The document is also linted with @redocly/openapi-core (recommended
 * rules): no error, and only the warnings listed here.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { createParser } from 'eventsource-parser';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSwitchboard, type DemoSwitchboard } from '../support/demo-switchboard.js';

let running: DemoSwitchboard;
let url: string;
let document: Record<string, unknown>;
/** `[label, TypeScript type expression, recorded body]`. */
const recorded: [string, string, unknown][] = [];

const responseType = (path: string, method: string, status: number, media = 'application/json') => `paths['${path}']['${method}']['responses'][${status}]['content']['${media}']`;

async function record(label: string, type: string, response: Response, status: number): Promise<unknown> {
  expect(response.status, label).toBe(status);
  const body = (await response.json()) as unknown;
  recorded.push([label, type, body]);
  return body;
}

const chat = (body: unknown, accept = 'application/json', headers: Record<string, string> = {}) =>
  fetch(`${url}/v1/chat`, { method: 'POST', headers: { 'content-type': 'application/json', accept, ...headers }, body: JSON.stringify(body) });

beforeAll(async () => {
  running = await startDemoSwitchboard({ keepSideEffects: true });
  url = running.board.url;
  document = (await (await fetch(`${url}/openapi.json`)).json()) as Record<string, unknown>;

  await record('chat: a booking held for confirmation plus the weather', responseType('/v1/chat', 'post', 200), await chat({ query: '帮我订北京的酒店，明天入住，再告诉我北京明天的天气', user_id: 'typed', session_id: 'typed-1' }), 200);
  await record('chat: a missing slot', responseType('/v1/chat', 'post', 200), await chat({ query: '帮我订酒店', user_id: 'typed', session_id: 'typed-2' }), 200);
  const stream = await chat({ query: '北京明天天气怎么样', user_id: 'typed', session_id: 'typed-3' }, 'text/event-stream');
  const events: unknown[] = [];
  const parser = createParser({ onEvent: (message) => events.push(JSON.parse(message.data)) });
  parser.feed(await stream.text());
  recorded.push(['events of a streamed turn', `components['schemas']['ResponseState'][]`, events]);
  await record('agents', responseType('/v1/agents', 'get', 200), await fetch(`${url}/v1/agents`), 200);
  await record('session messages', responseType('/v1/sessions/{session_id}/messages', 'get', 200), await fetch(`${url}/v1/sessions/typed-1/messages?user_id=typed`), 200);
  await record('profile', responseType('/v1/users/{user_id}/profile', 'get', 200), await fetch(`${url}/v1/users/typed/profile?user_id=typed`), 200);
  await record('error: bad chat body, with details', responseType('/v1/chat', 'post', 400), await chat({ user_id: 'typed' }), 400);
  await record('error: no such session', responseType('/v1/sessions/{session_id}/messages', 'get', 404), await fetch(`${url}/v1/sessions/nope/messages?user_id=typed`), 404);
  await record('error: another user’s profile', responseType('/v1/users/{user_id}/profile', 'get', 403), await fetch(`${url}/v1/users/typed/profile?user_id=someone`), 403);
  await record('error: nothing to cancel', responseType('/v1/sessions/{session_id}/cancel', 'post', 404), await fetch(`${url}/v1/sessions/typed-1/cancel?user_id=typed`, { method: 'POST' }), 404);
  await record('error: wrong method', `components['responses']['METHOD_NOT_ALLOWED']['content']['application/json']`, await fetch(`${url}/v1/agents`, { method: 'PUT' }), 405);
  await record('health', responseType('/healthz', 'get', 200), await fetch(`${url}/healthz`), 200);
  await record('ready', responseType('/readyz', 'get', 200), await fetch(`${url}/readyz`), 200);
  await record('profile deleted', responseType('/v1/users/{user_id}/profile', 'delete', 200), await fetch(`${url}/v1/users/typed/profile?user_id=typed&all=true`, { method: 'DELETE' }), 200);
}, 60_000);

afterAll(() => running?.close());

/** Type-checks `source` beside the generated `api.ts`; returns the diagnostics as text. */
function typeCheck(api: string, source: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'sb-typed-client-'));
  try {
    writeFileSync(join(dir, 'api.ts'), api);
    writeFileSync(join(dir, 'check.ts'), source);
    const program = ts.createProgram([join(dir, 'check.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      skipLibCheck: true,
      types: [],
    });
    return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
      const where = diagnostic.file && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start) : undefined;
      return `${diagnostic.file ? diagnostic.file.fileName.replace(dir, '') : ''}${where ? `:${where.line + 1}` : ''} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('a client generated from /openapi.json', () => {
  it('type-checks every recorded real answer with satisfies, and refuses one that does not fit', async () => {
    expect(recorded.length).toBeGreaterThanOrEqual(9);
    const api = astToString(await openapiTS(structuredClone(document) as never));
    expect(api).toContain('export interface paths');
    const lines = ["import type { components, paths } from './api';"];
    recorded.forEach(([label, type, body], index) => lines.push(`// ${label}`, `export const body${index} = ${JSON.stringify(body)} satisfies ${type};`));
    expect(typeCheck(api, lines.join('\n'))).toEqual([]);

    // The check has teeth: a wrong field type and an undeclared field are both reported.
    const wrong = [
      "import type { paths } from './api';",
      `export const wrongType = { session_id: 7, final_answer: '', events: [] } satisfies ${responseType('/v1/chat', 'post', 200)};`,
      `export const extraField = { status: 'ok', uptime: 1 } satisfies ${responseType('/healthz', 'get', 200)};`,
    ];
    const problems = typeCheck(api, wrong.join('\n'));
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/check\.ts:2 .*number.*string/s);
    expect(problems[1]).toMatch(/check\.ts:3 .*uptime/s);
  }, 60_000);

  it('lints clean with @redocly/openapi-core (recommended): no error, only known warnings', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: `${url}/openapi.json`, config });
    const errors = problems.filter((problem) => problem.severity === 'error').map((problem) => `${problem.ruleId} ${problem.location[0]?.pointer}: ${problem.message}`);
    expect(errors).toEqual([]);
    const warnings = problems.filter((problem) => problem.severity === 'warn').map((problem) => `${problem.ruleId} ${problem.location[0]?.pointer}`);
    // No licence is published for the product, the shared Error schema is kept for clients, and an unknown path's 404 belongs to no operation.
    expect(warnings.sort()).toEqual(['info-license #/info', 'no-unused-components #/components/responses/NOT_FOUND', 'no-unused-components #/components/schemas/Error']);
  }, 60_000);
});
