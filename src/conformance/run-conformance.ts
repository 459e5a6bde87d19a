/**
 * The conformance suite of docs/api.md#sub-agent-wire-protocol (`switchboard check-agent`). The suite
 * itself lives in the agent kit (`packages/agent-kit`), so an agent's own
 * project runs the same checks with `npx switchboard check-agent`; here it is
 * run with the agent client's own pieces — its envelope parser (ajv over
 * `schemas/agent-reply.schema.json`) and its byte cap — so what passes here
 * is what the client accepts.
 */
import { runConformance as runKitConformance, type ConformanceOptions as KitOptions } from '../../packages/agent-kit/src/conformance/run-conformance.js';
import { createEnvelopeValidator, DEFAULT_MAX_RESPONSE_BYTES, type EnvelopeValidator, parseReplyText } from '../agents/index.js';
import type { ConformanceReport, ConformanceTarget } from './types.js';

/** Dependencies of a run. */
export interface ConformanceOptions extends Omit<KitOptions, 'parseReply'> {
  /** Judges reply envelopes; a fresh one unless given. */
  envelope?: EnvelopeValidator;
}

/** Runs every check against `target`; never throws for agent misbehaviour. */
export function runConformance(target: ConformanceTarget, options: ConformanceOptions = {}): Promise<ConformanceReport> {
  const { envelope = createEnvelopeValidator(), ...rest } = options;
  // An A2A target goes to the A2A suite; here its protocol is read from the first reply.
  return runKitConformance({ ...target, protocol: target.protocol === 'a2a' ? undefined : target.protocol }, {
    ...rest,
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    parseReply: (text, what) => {
      const parsed = parseReplyText(envelope, text, what);
      return parsed.ok ? { ok: true, reply: parsed.reply } : { ok: false, problem: parsed.reason };
    },
  });
}
