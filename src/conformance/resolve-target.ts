/**
 * Turns the `check-agent` argument into a target: a URL is checked as it is
 * (protocol detected from the reply), an agent id is looked up in a registry
 * file so its endpoint headers, timeout, protocol and `output_schema` apply,
 * and sample inputs are made from its required keys (a pattern key's sample is
 * read from the card's own examples with the same extractor routing uses).
 */
import { type AgentReply, outputSchemaProblem } from '../agents/index.js';
import type { AgentCard, ExtractSpec } from '../registry/index.js';
import { addLocalDays, extractOne, formatLocalDate } from '../text/index.js';
import type { ConformanceTarget } from './types.js';

/** Timeout of a URL target when none is given (the registry's default endpoint timeout). */
export const DEFAULT_CHECK_TIMEOUT_MS = 10_000;

/** A target for a bare URL. */
export function targetFromUrl(url: string, options: { timeoutMs?: number; inputs?: Record<string, unknown> } = {}): ConformanceTarget {
  return { url, headers: {}, timeoutMs: options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS, requiredKeys: [], inputs: options.inputs ?? {} };
}

/** A target for a registered card; `inputs` override the generated samples. */
export function targetFromCard(card: AgentCard, options: { timeoutMs?: number; inputs?: Record<string, unknown>; today?: Date } = {}): ConformanceTarget {
  const samples: Record<string, unknown> = {};
  const today = options.today ?? new Date();
  for (const spec of card.requiredKeys) {
    const value = sampleValue(spec.extract, today) ?? exampleValue(spec.extract, card.examples, today);
    if (value !== undefined) samples[spec.key] = value;
  }
  return {
    url: card.endpoint.url,
    protocol: card.endpoint.protocol === 'http-sse' || card.endpoint.protocol === 'a2a' ? card.endpoint.protocol : 'http-json',
    headers: card.endpoint.headers,
    timeoutMs: options.timeoutMs ?? card.endpoint.timeoutMs,
    ...(card.validateOutput ? { checkOutput: (reply: AgentReply) => outputSchemaProblem(reply, card.validateOutput) } : {}),
    requiredKeys: card.requiredKeys.map((spec) => spec.key),
    inputs: { ...samples, ...options.inputs },
    agentId: card.id,
    sideEffects: card.sideEffects === true,
  };
}

/** The first value `spec` reads from one of the card's examples ("从北京飞上海" → 北京), or undefined. */
function exampleValue(spec: ExtractSpec, examples: readonly string[], today: Date): unknown {
  for (const example of examples) {
    const outcome = extractOne(example.normalize('NFKC'), spec, today);
    if (outcome && 'value' in outcome) return outcome.value;
  }
  return undefined;
}

/** A plausible value of a key, or undefined when none can be made (a pattern). */
export function sampleValue(spec: ExtractSpec, today: Date): unknown {
  switch (spec.type) {
    case 'enum':
      return spec.values[0];
    case 'date': {
      return formatLocalDate(addLocalDays(today, 1));
    }
    case 'number':
      return spec.min ?? 1;
    case 'phone':
      return '13800138000';
    case 'email':
      return 'check@example.com';
    case 'text':
      return 'test';
    case 'pattern':
      return undefined;
  }
}
