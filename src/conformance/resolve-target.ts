/**
 * Turns the `check-agent` argument into a target: a URL is checked as it is
 * (protocol detected from the reply), an agent id is looked up in a registry
 * file so its endpoint headers, timeout, protocol and `output_schema` apply,
 * and sample inputs are made from its required keys.
 */
import type { AgentCard, ExtractSpec } from '../registry/types.js';
import { addLocalDays, formatLocalDate } from '../text/index.js';
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
  for (const spec of card.requiredKeys) {
    const value = sampleValue(spec.extract, options.today ?? new Date());
    if (value !== undefined) samples[spec.key] = value;
  }
  return {
    url: card.endpoint.url,
    protocol: card.endpoint.protocol === 'http-sse' ? 'http-sse' : 'http-json',
    headers: card.endpoint.headers,
    timeoutMs: options.timeoutMs ?? card.endpoint.timeoutMs,
    validateOutput: card.validateOutput,
    requiredKeys: card.requiredKeys.map((spec) => spec.key),
    inputs: { ...samples, ...options.inputs },
    agentId: card.id,
  };
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
