/**
 * Shapes of a loaded registry. The YAML file (docs/api.md#registry-file) uses snake_case;
 * everything here is the normalised, camelCase form the rest of the code reads.
 * A snapshot is deeply frozen once built and swapped in by one assignment.
 */
import type { ValidateFunction } from 'ajv';
import type { SafePattern } from '../util/index.js';
import type { SemanticKeySpec } from '../text/index.js';
import type { AgentProtocol } from './agent-protocols.js';

// A semantic key and the rule that finds its value in text are text's vocabulary (`src/text/key-specs.ts`).
export type { ExtractSpec, SemanticKeySpec } from '../text/index.js';

export type { AgentProtocol } from './agent-protocols.js';

export interface AgentEndpoint {
  readonly url: string;
  readonly protocol: AgentProtocol;
  readonly timeoutMs: number;
  readonly retries: number;
  /** `${VAR}` already resolved. Secret: never logged nor returned by any API. */
  readonly headers: Readonly<Record<string, string>>;
  /** The registry set `allow_private_endpoints: true`: connections to link-local / metadata / unique-local addresses are not refused. */
  readonly allowPrivateAddresses?: boolean;
  /** Calls to this agent in flight at once (`max_connections`, else the supervisor's default); more wait briefly, then fail `busy`. */
  readonly maxConnections?: number;
  /** When calls to this agent stop being made for a while (the endpoint's, else the supervisor's, else the defaults; absent = the defaults). */
  readonly circuitBreaker?: CircuitBreakerSettings;
}

/** `circuit_breaker` resolved: when an agent's breaker opens and for how long. */
export interface CircuitBreakerSettings {
  readonly enabled: boolean;
  /** Share of failed calls in the window at or above which the breaker opens (0 < rate ≤ 1). */
  readonly errorRate: number;
  /** Calls that must have been made in the window before it may open. */
  readonly minCalls: number;
  readonly windowS: number;
  /** Seconds open before one trial call is let through. */
  readonly openS: number;
}

/** A capability card: one registered sub-agent, validated and frozen. */
export interface AgentCard {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  /** Name per language when the registry gives a map (`{ zh, en }`); `name` is then its default text. */
  readonly names?: Readonly<Record<string, string>>;
  /** Description per language, as `names`. */
  readonly descriptions?: Readonly<Record<string, string>>;
  readonly enabled: boolean;
  readonly examples: readonly string[];
  readonly keywords: readonly string[];
  readonly dependsOn: readonly string[];
  readonly endpoint: AgentEndpoint;
  readonly requiredKeys: readonly SemanticKeySpec[];
  readonly inputSchema?: Readonly<Record<string, unknown>>;
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  /** A write (booking, refund, payment): dispatched only after the user confirms (docs/api.md#conversation-rules); never cached, never filled from the user's profile nor from another request's clause. */
  readonly sideEffects?: boolean;
  /** Seconds a completed reply for the same inputs is reused (read-only agents only). */
  readonly cacheTtlS?: number;
  /** Seconds a cached reply may still be served when a call fails or the breaker is open (read-only agents with `cacheTtlS`). */
  readonly staleIfErrorS?: number;
  /** Registered by `a2a_card`: where the card is, when it was fetched, and why it could not be (the agent is then not routable). */
  readonly a2aCard?: { readonly url: string; readonly fetchedAt?: string; readonly error?: string };
  /** Media types the agent accepts / answers with (from its A2A card). */
  readonly inputModes?: readonly string[];
  readonly outputModes?: readonly string[];
  /** Compiled once per snapshot; undefined when no schema was given. */
  readonly validateInput?: ValidateFunction;
  readonly validateOutput?: ValidateFunction;
}

/** Extra words for the rule fast path (`supervisor.word_lists`), added to the built-in lists. */
export interface WordLists {
  readonly sensitive: readonly string[];
  readonly abusive: readonly string[];
  readonly escalation: readonly string[];
}

export interface SupervisorSettings {
  readonly memoryMaxHistory: number;
  readonly maxParallel: number;
  readonly defaultTimeoutMs: number;
  /** `max_connections_per_agent`: calls in flight at once to one agent when its endpoint sets no `max_connections`. */
  readonly maxConnectionsPerAgent?: number;
  /** `max_concurrent_turns`: turns this process carries at once; one more is answered `503 OVERLOADED` at once. */
  readonly maxConcurrentTurns?: number;
  readonly escalateAfterFailures: number;
  readonly wordLists: WordLists;
  /** `supervisor.synonyms`: word → equivalent words, a last resort for offline routing; absent when not set. */
  readonly synonyms?: Readonly<Record<string, readonly string[]>>;
  /**
   * The verify step after execution (docs/api.md#model-replies). `judge`: `on_doubt` = the model judges only when the
   * rule check flags a task or an output failed its output_schema; `always` = on every multi-intent turn too.
   */
  readonly verify: { readonly enabled: boolean; readonly maxRetries: number; readonly judge: VerifyJudge };
  /** Seconds a read-only answer is reused for a near-duplicate question; 0 = off. */
  readonly answerCacheTtlS: number;
  /** Transcripts, turn events and task records older than this many days are deleted. */
  readonly retentionDays: number;
  /** A `/v1/chat` call arriving at this delegation depth or deeper is refused (seed 004). */
  readonly maxDelegationDepth: number;
  /** Per-turn budgets (docs/api.md#registry-file). */
  readonly budgets: TurnBudgets;
  /** Per-user request limit; null = none. */
  readonly rateLimit: RateLimitSettings | null;
  /** Extra kinds of personal data to mask, compiled. */
  readonly piiPatterns: readonly PiiPattern[];
  /** Endpoint urls may point at link-local / metadata / unique-local addresses. */
  readonly allowPrivateEndpoints: boolean;  /** Seconds a parked task (missing keys / awaiting confirmation) is kept. */
  readonly pendingTtlS: number;
  readonly escalation: EscalationSettings;
  /** `supervisor.circuit_breaker` merged over the defaults: what an agent's endpoint inherits. */
  readonly circuitBreaker: CircuitBreakerSettings;
}

/** `supervisor.escalation`: the emotion trigger and the ticket webhook. */
export interface EscalationSettings {
  /** `${VAR}` already resolved; absent = no webhook. Secret-like: never returned by any API. */
  readonly webhookUrl?: string;
  /** Strong negative-emotion words added to the built-in lists. */
  readonly emotionWords: readonly string[];
  /** Intensity at which a message is escalated. */
  readonly emotionThreshold: number;
}

/** Per-turn limits; when one is reached the rest of the turn's work stops. */
export interface TurnBudgets {
  readonly maxSubtasks: number;
  readonly maxLlmTokens: number;
  readonly maxTurnMs: number;
}

/** `supervisor.rate_limit`. */
/** When the verify step's model call runs (`supervisor.verify.judge`). */
export type VerifyJudge = 'on_doubt' | 'always';

export interface RateLimitSettings {
  readonly perUserPerMinute: number;
  readonly burst: number;
}

/** One registry-declared kind of personal data. */
export interface PiiPattern {
  readonly name: string;
  readonly pattern: SafePattern;
}

/** An immutable registry version. In-flight turns keep the snapshot they started with. */
export interface RegistrySnapshot {
  /** Content hash of the source file. */
  readonly version: string;
  /** ISO timestamp. */
  readonly loadedAt: string;
  readonly sourcePath: string;
  readonly supervisor: SupervisorSettings;
  readonly widgets: Readonly<Record<string, string>>;
  readonly agents: readonly AgentCard[];
  readonly byId: ReadonlyMap<string, AgentCard>;
  /** Enabled cards only, in file order. */
  readonly enabledAgents: readonly AgentCard[];
  /** What the load warned about (registry lint, deprecations); the snapshot is live all the same. */
  readonly warnings?: readonly ConfigIssue[];
}

/** One problem found in a registry file. Printed as `file:line:col  pointer  message`. */
export interface ConfigIssue {
  readonly file: string;
  readonly line: number;
  readonly col: number;
  /** JSON pointer into the document, e.g. `/agents/0/endpoint/url`. */
  readonly pointer: string;
  readonly message: string;
}

/** What `GET /v1/agents` shows of a failed reload. */
export interface LastLoadError {
  readonly file: string;
  readonly line: number;
  readonly col: number;
  readonly message: string;
  readonly issues: readonly ConfigIssue[];
  readonly at: string;
}

/** What changed between two snapshots (for the reload log line). */
export interface RegistryDiff {
  readonly added: string[];
  readonly removed: string[];
  readonly modified: string[];
  readonly enabled: string[];
  readonly disabled: string[];
}

/** A public view of a card: no endpoint headers, nothing secret. */
export interface PublicAgentCard {
  id: string;
  /** Default text; `names` / `descriptions` hold the per-language texts when the registry gives them. */
  name: string;
  description: string;
  names?: Record<string, string>;
  descriptions?: Record<string, string>;
  enabled: boolean;
  examples: string[];
  keywords: string[];
  depends_on: string[];
  protocol: AgentProtocol;
  required_semantic_keys: { key: string; description: string; descriptions?: Record<string, string>; widget: string; extract: Record<string, unknown>; remember?: true }[];
  input_schema?: Record<string, unknown>;
  output_schema?: Record<string, unknown>;
  /** Registered by `a2a_card`: the card's url, when it was fetched, and the reason it could not be (then the agent is not routable). */
  a2a_card?: { url: string; fetched_at?: string; error?: string };
  input_modes?: string[];
  output_modes?: string[];
  /** Passive health from recent calls, when the server tracks it. */
  health?: { status: 'unknown' | 'ok' | 'failing'; consecutive_failures: number; last_call_at: string | null; last_outcome: string | null; breaker?: 'closed' | 'open' | 'half_open' };
}

/** The live registry: the current snapshot plus the last reload failure. */
export interface Registry {
  current(): RegistrySnapshot;
  lastError(): LastLoadError | null;
  /** Called after each successful swap. Returns an unsubscribe function. */
  onReload(listener: (next: RegistrySnapshot, previous: RegistrySnapshot, diff: RegistryDiff) => void): () => void;
  close(): Promise<void>;
}
