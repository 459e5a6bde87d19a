/**
 * The registry document as written (snake_case), after the JSON Schema pass.
 * Parts under a schema issue may still have any shape, so readers that walk
 * the whole file guard with `isRecord` / `dependencyList`.
 */
import type { LocalizedField } from './localized-text.js';
import type { RawExtract } from './extract-spec.js';
import type { AgentProtocol } from './types.js';

/** One raw `required_semantic_keys` entry. */
export interface RawKey {
  key: string;
  description: LocalizedField;
  widget?: string;
  fe_wigdets_suggestion?: string;
  extract?: RawExtract;
  remember?: boolean;
}

/** One raw `agents` entry. */
export interface RawAgent {
  id: string;
  /** Register by A2A Agent Card url; then name, description and endpoint may be left out. */
  a2a_card?: string;
  name: LocalizedField;
  description: LocalizedField;
  enabled?: boolean;
  examples?: string[];
  keywords?: string[];
  depends_on?: string[];
  endpoint: {
    url: string;
    protocol?: AgentProtocol;
    timeout_ms?: number;
    retries?: number;
    max_connections?: number;
    headers?: Record<string, string>;
    circuit_breaker?: RawCircuitBreaker;
  };
  required_semantic_keys?: RawKey[];
  fe_wigdets_suggestion?: string[];
  input_schema?: Record<string, unknown>;
  output_schema?: Record<string, unknown>;
  side_effects?: boolean;
  cache_ttl_s?: number;
  stale_if_error_s?: number;
}

/** A raw `circuit_breaker` block (supervisor or endpoint); every field optional. */
export interface RawCircuitBreaker {
  enabled?: boolean;
  error_rate?: number;
  min_calls?: number;
  window_s?: number;
  open_s?: number;
}

/** The raw document. */
export interface RawConfig {
  version: 1;
  supervisor?: {
    memory_max_history?: number;
    max_parallel?: number;
    default_timeout_ms?: number;
    max_connections_per_agent?: number;
    max_concurrent_turns?: number;
    escalate_after_failures?: number;
    word_lists?: { sensitive?: string[]; abusive?: string[]; escalation?: string[] };
    synonyms?: Record<string, string[]>;
    verify?: { enabled?: boolean; max_retries?: number; judge?: 'on_doubt' | 'always' };
    answer_cache_ttl_s?: number;
    retention_days?: number;
    max_delegation_depth?: number;
    budgets?: { max_subtasks?: number; max_llm_tokens?: number; max_turn_ms?: number };
    rate_limit?: { per_user_per_minute: number; burst?: number };
    pii_patterns?: { name: string; pattern: string }[];
    allow_private_endpoints?: boolean;
    pending_ttl_s?: number;
    escalation?: { webhook_url?: string; emotion_words?: string[]; emotion_threshold?: number };
    circuit_breaker?: RawCircuitBreaker;
  };
  widgets?: Record<string, string>;
  fe_wigdets_suggestion?: Record<string, string>;
  agents: RawAgent[];
}

/** True for a plain object (an agent entry whose shape may be invalid). */
export function isRecord(value: unknown): value is Record<string, unknown> & RawAgent {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `depends_on` of an agent whose shape may be invalid. */
export function dependencyList(agent: RawAgent | undefined): unknown[] {
  return isRecord(agent) && Array.isArray(agent.depends_on) ? agent.depends_on : [];
}
