/**
 * Stub sub-agents for dialogue tests (docs/api.md#commands): one local HTTP server
 * that stands in for every agent of a registry (`POST /<agent_id>`), records
 * what each call received (inputs and message) and answers `completed` with
 * an output built from the agent's `output_schema`, so the real supervisor
 * turn runs end to end and never reaches a real endpoint.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One call a stub received. */
export interface StubCall {
  agentId: string;
  inputs: Record<string, unknown>;
  message: string;
  userId: string;
  sessionId: string;
}

export interface StubAgents {
  /** `http://127.0.0.1:<port>/`: an agent's endpoint is this plus its id. */
  baseUrl: string;
  /** Every call so far, in arrival order. */
  readonly calls: readonly StubCall[];
  close(): Promise<void>;
}

/** A value that meets a JSON Schema (the subset registries use: type, properties, required, items, enum, const, format). */
export function sampleOf(schema: unknown, depth = 0): unknown {
  if (!schema || typeof schema !== 'object' || depth > 8) return 'stub';
  const spec = schema as Record<string, unknown>;
  if ('const' in spec) return spec.const;
  if (Array.isArray(spec.enum) && spec.enum.length > 0) return spec.enum[0];
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (Array.isArray(spec[key]) && spec[key].length > 0) return sampleOf(spec[key][0], depth + 1);
  }
  const type = Array.isArray(spec.type) ? spec.type.find((item) => item !== 'null') : spec.type;
  switch (type) {
    case 'object':
    case undefined: {
      if (type === undefined && !spec.properties) return 'stub';
      const properties = (spec.properties ?? {}) as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const [key, property] of Object.entries(properties)) out[key] = sampleOf(property, depth + 1);
      return out;
    }
    case 'array':
      return Array.from({ length: Math.max(1, Number(spec.minItems ?? 1)) }, () => sampleOf(spec.items, depth + 1));
    case 'integer':
    case 'number':
      return typeof spec.minimum === 'number' ? spec.minimum : 1;
    case 'boolean':
      return true;
    case 'string':
      if (spec.format === 'date') return '2026-01-01';
      if (spec.format === 'date-time') return '2026-01-01T00:00:00Z';
      if (spec.format === 'email') return 'stub@example.com';
      return `stub-${Math.max(1, Number(spec.minLength ?? 1))}`;
    default:
      return 'stub';
  }
}

/** Starts the stubs; `outputSchemaOf` gives each agent's output_schema (undefined: `{ ok: true }`). */
export async function startStubAgents(outputSchemaOf: (agentId: string) => unknown): Promise<StubAgents> {
  const calls: StubCall[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const agentId = decodeURIComponent((request.url ?? '/').split('?')[0]!.replace(/^\/+/, ''));
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        // A body that is not JSON is recorded as empty.
      }
      const inputs = body.inputs && typeof body.inputs === 'object' ? (body.inputs as Record<string, unknown>) : {};
      calls.push({
        agentId,
        inputs,
        message: typeof body.message === 'string' ? body.message : '',
        userId: typeof body.user_id === 'string' ? body.user_id : '',
        sessionId: typeof body.thread_id === 'string' ? body.thread_id : '',
      });
      const schema = outputSchemaOf(agentId);
      const output = schema ? sampleOf(schema) : { ok: true };
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ status: 'completed', output: output && typeof output === 'object' ? output : { value: output }, message: `${agentId} done` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
