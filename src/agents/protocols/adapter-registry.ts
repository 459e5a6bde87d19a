/**
 * Protocol adapters keyed by `endpoint.protocol`. The client looks an adapter
 * up per call, so a new protocol is one more entry here.
 */
import type { AgentProtocol } from '../../registry/index.js';
import { createEnvelopeValidator, type EnvelopeValidator } from '../reply-envelope.js';
import type { ProtocolAdapter } from './protocol-adapter.js';
import { createHttpJsonAdapter } from './http-json.js';
import { createHttpSseAdapter } from './http-sse.js';
import { createA2aAdapter } from './a2a.js';

/** Adapters by protocol name; the built-in ones are always present. */
export type ProtocolAdapters = Readonly<Record<AgentProtocol, ProtocolAdapter>> & Readonly<Record<string, ProtocolAdapter>>;

/** The built-in adapters (judging replies with `envelope`), optionally extended or overridden (e.g. `{ a2a: createA2aAdapter({ cardTtlMs: 0 }) }`). */
export function createProtocolAdapters(
  extra: Readonly<Record<string, ProtocolAdapter>> = {},
  envelope: EnvelopeValidator = createEnvelopeValidator(),
): ProtocolAdapters {
  return Object.freeze({
    'http-json': createHttpJsonAdapter({ envelope }),
    'http-sse': createHttpSseAdapter({ envelope }),
    a2a: createA2aAdapter(),
    ...extra,
  });
}
