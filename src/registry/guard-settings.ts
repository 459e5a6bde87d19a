/**
 * The supervisor's guard-rail settings (docs/api.md#registry-file): delegation depth,
 * per-turn budgets, the rate limit, extra personal-data patterns and whether
 * endpoints may point at private addresses. All optional, all hot-reloadable.
 */
import { compileSafePattern } from '../util/index.js';
import { SUPERVISOR_DEFAULTS } from './defaults.js';
import type { Findings } from './findings.js';
import type { RawConfig } from './raw-config.js';
import type { ConfigIssue, PiiPattern, SupervisorSettings } from './types.js';
import { joinPointer, type YamlSource } from './yaml-source.js';

type GuardFields = Pick<SupervisorSettings, 'maxDelegationDepth' | 'budgets' | 'rateLimit' | 'allowPrivateEndpoints'>;

/** The guard settings of `supervisor`, defaults filled in (patterns are compiled separately). */
export function guardSettings(raw: RawConfig['supervisor']): GuardFields {
  const defaults = SUPERVISOR_DEFAULTS;
  return {
    maxDelegationDepth: raw?.max_delegation_depth ?? defaults.maxDelegationDepth,
    budgets: {
      maxSubtasks: raw?.budgets?.max_subtasks ?? defaults.budgets.maxSubtasks,
      maxLlmTokens: raw?.budgets?.max_llm_tokens ?? defaults.budgets.maxLlmTokens,
      maxTurnMs: raw?.budgets?.max_turn_ms ?? defaults.budgets.maxTurnMs,
    },
    rateLimit: raw?.rate_limit ? { perUserPerMinute: raw.rate_limit.per_user_per_minute, burst: Math.max(1, raw.rate_limit.burst ?? raw.rate_limit.per_user_per_minute) } : null,
    allowPrivateEndpoints: raw?.allow_private_endpoints ?? defaults.allowPrivateEndpoints,
  };
}

/** Compiles `supervisor.pii_patterns` on the linear-time engine; an unusable pattern is an issue at its position. */
export function compilePiiPatterns(config: RawConfig, source: YamlSource): Findings & { value: PiiPattern[] } {
  const issues: ConfigIssue[] = [];
  const value: PiiPattern[] = [];
  const seen = new Set<string>();
  (config.supervisor?.pii_patterns ?? []).forEach((entry, index) => {
    const compiled = compileSafePattern(entry.pattern);
    if (!compiled.ok) {
      issues.push(source.issueAt(joinPointer(['supervisor', 'pii_patterns', index, 'pattern']), compiled.error));
      return;
    }
    if (compiled.pattern.test('')) {
      issues.push(source.issueAt(joinPointer(['supervisor', 'pii_patterns', index, 'pattern']), 'pattern matches the empty string, so it would mask nothing useful'));
      return;
    }
    if (seen.has(entry.name)) {
      issues.push(source.issueAt(joinPointer(['supervisor', 'pii_patterns', index, 'name']), `pii pattern name "${entry.name}" is used twice`));
      return;
    }
    seen.add(entry.name);
    value.push({ name: entry.name, pattern: compiled.pattern });
  });
  return { value, issues, warnings: [] };
}
