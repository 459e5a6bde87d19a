/**
 * Builds the frozen snapshot from a document that passed the JSON Schema:
 * supervisor settings and widgets with defaults, the cross-agent checks
 * (`cross-checks.ts`), one card per agent (`build-card.ts`, schemas compiled
 * by `schema-compiler.ts`), then freezing (`freeze-snapshot.ts`). Every check
 * returns its findings; a snapshot is only built when none is an issue.
 */
import { lintRegistry } from './registry-lint.js';
import type { A2aCardMap } from './a2a-cards.js';
import { buildCard } from './build-card.js';
import { compilePiiPatterns, guardSettings } from './guard-settings.js';
import { crossCheckAgents } from './cross-checks.js';
import { escalationSettings } from './escalation-settings.js';
import { SUPERVISOR_DEFAULTS, mergeCircuitBreaker } from './defaults.js';
import { mergeFindings, type Findings } from './findings.js';
import { freezeSnapshot } from './freeze-snapshot.js';
import { createPrivateAddressCheck } from './private-address.js';
import { isRecord, type RawConfig } from './raw-config.js';
import { createSchemaCompiler, type ValidatorCache } from './schema-compiler.js';
import type { AgentCard, ConfigIssue, RegistrySnapshot, SupervisorSettings } from './types.js';
import { joinPointer, type YamlSource } from './yaml-source.js';

/** What the builder needs besides the parsed file. */
export interface BuildOptions {
  env: Readonly<Record<string, string | undefined>>;
  version: string;
  sourcePath: string;
  loadedAt?: Date;
  /**
   * JSON pointers that already failed the JSON Schema. Parts under them are
   * not cross-checked and no card is built for their agent; everything else is
   * still checked, so schema and cross-check problems are reported together.
   */
  shapeIssuePointers?: readonly string[];
  /** Validators kept from earlier loads; see `ValidatorCache`. */
  validatorCache?: ValidatorCache;
  /** Agent Cards fetched for the file's `a2a_card` agents. */
  a2aCards?: A2aCardMap;
}

/** Result of cross-checking and building. */
export type BuildResult =
  | { ok: true; snapshot: RegistrySnapshot; warnings: ConfigIssue[] }
  | { ok: false; issues: ConfigIssue[]; warnings: ConfigIssue[] };

/** Builds a snapshot from a document that already passed the JSON Schema. */
export function buildSnapshot(source: YamlSource, options: BuildOptions): BuildResult {
  const config = source.data as RawConfig;
  const piiPatterns = compilePiiPatterns(config, source);
  const escalation = escalationSettings(
    config.supervisor?.escalation,
    source,
    options.env,
    config.supervisor?.allow_private_endpoints === true ? undefined : createPrivateAddressCheck(),
  );
  const supervisor = supervisorSettings(config, piiPatterns.value, escalation.value);
  const widgets = widgetDictionary(config, source);
  const crossChecks = crossCheckAgents(source, config.agents);

  const shapeIssuePointers = options.shapeIssuePointers ?? [];
  const isMalformed = (pointer: string): boolean =>
    shapeIssuePointers.some((issuePointer) => issuePointer === pointer || issuePointer.startsWith(`${pointer}/`));
  const schemaCompiler = createSchemaCompiler(options.validatorCache);
  const context = { source, supervisor, widgets: widgets.value, env: options.env, schemaCompiler, privateAddressProblem: createPrivateAddressCheck(), isMalformed, a2aCards: options.a2aCards };
  const agents: AgentCard[] = [];
  const cardFindings: Findings[] = [];
  config.agents.forEach((agent, index) => {
    if (!isRecord(agent)) return;
    const card = buildCard(agent, index, context);
    cardFindings.push(card);
    if (card.value && !isMalformed(joinPointer(['agents', index]))) agents.push(card.value);
  });

  const { issues, warnings } = mergeFindings(piiPatterns, escalation, widgets, crossChecks, ...cardFindings, agentListWarnings(config, source), lintRegistry(config, source));
  if (issues.length > 0) return { ok: false, issues, warnings };
  schemaCompiler.pruneCache();
  const snapshot = freezeSnapshot({
    version: options.version,
    loadedAt: (options.loadedAt ?? new Date()).toISOString(),
    sourcePath: options.sourcePath,
    supervisor,
    widgets: widgets.value,
    agents,
    warnings,
  });
  return { ok: true, snapshot, warnings };
}

function supervisorSettings(
  config: RawConfig,
  piiPatterns: SupervisorSettings['piiPatterns'],
  escalation: SupervisorSettings['escalation'],
): SupervisorSettings {
  const raw = config.supervisor;
  return {
    memoryMaxHistory: raw?.memory_max_history ?? SUPERVISOR_DEFAULTS.memoryMaxHistory,
    maxParallel: raw?.max_parallel ?? SUPERVISOR_DEFAULTS.maxParallel,
    defaultTimeoutMs: raw?.default_timeout_ms ?? SUPERVISOR_DEFAULTS.defaultTimeoutMs,
    maxConnectionsPerAgent: raw?.max_connections_per_agent ?? SUPERVISOR_DEFAULTS.maxConnectionsPerAgent,
    maxConcurrentTurns: raw?.max_concurrent_turns ?? SUPERVISOR_DEFAULTS.maxConcurrentTurns,
    escalateAfterFailures: raw?.escalate_after_failures ?? SUPERVISOR_DEFAULTS.escalateAfterFailures,
    wordLists: {
      sensitive: [...(raw?.word_lists?.sensitive ?? [])],
      abusive: [...(raw?.word_lists?.abusive ?? [])],
      escalation: [...(raw?.word_lists?.escalation ?? [])],
    },
    ...(raw?.synonyms ? { synonyms: Object.fromEntries(Object.entries(raw.synonyms).map(([word, equivalents]) => [word, [...equivalents]])) } : {}),
    verify: {
      enabled: raw?.verify?.enabled ?? SUPERVISOR_DEFAULTS.verify.enabled,
      maxRetries: raw?.verify?.max_retries ?? SUPERVISOR_DEFAULTS.verify.maxRetries,
      judge: raw?.verify?.judge ?? SUPERVISOR_DEFAULTS.verify.judge,
    },
    answerCacheTtlS: raw?.answer_cache_ttl_s ?? SUPERVISOR_DEFAULTS.answerCacheTtlS,
    retentionDays: raw?.retention_days ?? SUPERVISOR_DEFAULTS.retentionDays,
    ...guardSettings(raw),
    piiPatterns,
    pendingTtlS: raw?.pending_ttl_s ?? SUPERVISOR_DEFAULTS.pendingTtlS,
    escalation,
    circuitBreaker: mergeCircuitBreaker(SUPERVISOR_DEFAULTS.circuitBreaker, raw?.circuit_breaker),
  };
}

/** The `widgets` dictionary, with the deprecated top-level spelling merged under it. */
function widgetDictionary(config: RawConfig, source: YamlSource): Findings & { value: Record<string, string> } {
  const warnings =
    config.fe_wigdets_suggestion === undefined
      ? []
      : [source.issueAt('/fe_wigdets_suggestion', '`fe_wigdets_suggestion` is deprecated: rename it to `widgets`', { key: true })];
  return { value: { ...config.fe_wigdets_suggestion, ...config.widgets }, issues: [], warnings };
}

/** Warns when no request can reach an agent at all. */
function agentListWarnings(config: RawConfig, source: YamlSource): Findings {
  if (config.agents.length === 0) {
    return { issues: [], warnings: [source.issueAt('/agents', 'no agents are registered: every request will be answered directly')] };
  }
  if (config.agents.every((agent) => isRecord(agent) && agent.enabled === false)) {
    return { issues: [], warnings: [source.issueAt('/agents', 'every agent is disabled: every request will be answered directly')] };
  }
  return { issues: [], warnings: [] };
}
