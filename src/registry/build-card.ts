/**
 * Builds one agent's capability card from its raw entry: endpoint, required
 * semantic keys with widgets resolved (key → legacy list → `widgets`
 * dictionary → ""), normalised extract specs and compiled schemas.
 */
import { readLocalized } from './localized-text.js';
import { buildEndpoint } from './build-endpoint.js';
import { SUPERVISOR_DEFAULTS } from './defaults.js';
import type { PrivateAddressCheck } from './private-address.js';
import { normaliseExtract } from './extract-spec.js';
import { mergeFindings, type Checked, type Findings } from './findings.js';
import { isRecord, type RawAgent, type RawKey } from './raw-config.js';
import type { SchemaCompiler } from './schema-compiler.js';
import type { AgentCard, ConfigIssue, SemanticKeySpec, SupervisorSettings } from './types.js';
import { joinPointer, type YamlSource } from './yaml-source.js';
import type { A2aCardMap, FetchedA2aCard } from './a2a-cards.js';
import { interpolateEnv } from './env-interpolation.js';

/** What building a card reads besides the agent entry. */
export interface CardContext {
  source: YamlSource;
  supervisor: SupervisorSettings;
  widgets: Readonly<Record<string, string>>;
  env: Readonly<Record<string, string | undefined>>;
  schemaCompiler: SchemaCompiler;
  privateAddressProblem: PrivateAddressCheck;
  /** True when the JSON Schema already rejected what is at (or under) this pointer. */
  isMalformed: (pointer: string) => boolean;
  /** Agent Cards fetched for `a2a_card` agents (absent: none were fetched, such agents are not routable). */
  a2aCards?: A2aCardMap;
}

/** The card for `agents[index]`, or the issues that stop it being built. */
export function buildCard(rawAgent: RawAgent, index: number, context: CardContext): Checked<AgentCard> {
  const { source, isMalformed } = context;
  const at = (...segments: (string | number)[]) => joinPointer(['agents', index, ...segments]);
  const byCard = typeof rawAgent.a2a_card === 'string' && !isMalformed(at('a2a_card')) ? cardOf(rawAgent.a2a_card, context) : undefined;
  const agent = byCard ? withCardFields(rawAgent, byCard.url, byCard.fetched) : rawAgent;

  const endpoint =
    isMalformed(at('endpoint')) || !isRecord(agent.endpoint)
      ? { value: undefined, issues: [], warnings: [] }
      : buildEndpoint(agent, {
          source,
          env: context.env,
          defaultTimeoutMs: context.supervisor.defaultTimeoutMs,
          defaultMaxConnections: context.supervisor.maxConnectionsPerAgent ?? SUPERVISOR_DEFAULTS.maxConnectionsPerAgent!,
          allowPrivateEndpoints: context.supervisor.allowPrivateEndpoints,
          circuitBreaker: context.supervisor.circuitBreaker,
          privateAddressProblem: context.privateAddressProblem,
          at,
        });

  const rawKeys = Array.isArray(agent.required_semantic_keys) ? agent.required_semantic_keys : [];
  const legacyWidgets = isMalformed(at('fe_wigdets_suggestion')) ? undefined : agent.fe_wigdets_suggestion;
  const legacy = checkLegacyWidgetList(legacyWidgets, rawKeys.length, source, at);
  const keys = buildKeys(agent, rawKeys, legacyWidgets, context, at);

  const compileAt = (schema: Record<string, unknown> | undefined, field: 'input_schema' | 'output_schema') =>
    schema && !isMalformed(at(field)) ? context.schemaCompiler.compile(schema, at(field), source) : { value: undefined, issues: [], warnings: [] };
  const input = compileAt(agent.input_schema, 'input_schema');
  const output = compileAt(agent.output_schema, 'output_schema');

  const caching = checkCaching(agent, source, at);

  const findings = mergeFindings(endpoint, legacy, keys, input, output, caching);
  if (findings.issues.length > 0 || endpoint.value === undefined) return { value: undefined, ...findings };
  const cardModes = byCard?.fetched?.ok ? modesOf(byCard.fetched) : undefined;
  const card: AgentCard = {
    id: agent.id,
    ...localizedFields(agent),
    // An agent whose card could not be fetched stays registered, not routable.
    enabled: (agent.enabled ?? true) && (byCard === undefined || byCard.fetched?.ok === true),
    ...(byCard
      ? {
          a2aCard: {
            url: byCard.url,
            ...(byCard.fetched?.ok ? { fetchedAt: byCard.fetched.fetchedAt } : {}),
            ...(byCard.fetched?.error ? { error: byCard.fetched.error } : {}),
            ...(byCard.fetched === undefined ? { error: 'the Agent Card was not fetched (registry loaded without fetching cards)' } : {}),
          },
        }
      : {}),
    ...(cardModes ?? {}),
    examples: agent.examples ?? [],
    keywords: agent.keywords ?? [],
    dependsOn: agent.depends_on ?? [],
    endpoint: endpoint.value,
    requiredKeys: keys.value ?? [],
    ...(agent.side_effects === true ? { sideEffects: true } : {}),
    ...(agent.cache_ttl_s !== undefined ? { cacheTtlS: agent.cache_ttl_s } : {}),
    ...(agent.stale_if_error_s !== undefined ? { staleIfErrorS: agent.stale_if_error_s } : {}),
    ...(agent.input_schema ? { inputSchema: agent.input_schema, validateInput: input.value } : {}),
    ...(agent.output_schema ? { outputSchema: agent.output_schema, validateOutput: output.value } : {}),
  };
  return { value: card, ...findings };
}

/** The `a2a_card` url resolved and what was fetched from it. */
function cardOf(template: string, context: CardContext): { url: string; fetched: FetchedA2aCard | undefined } | undefined {
  const resolved = interpolateEnv(template, context.env);
  if (!resolved.ok) return { url: template, fetched: { ok: false, error: `a2a_card uses an environment variable that is not set` } };
  return { url: resolved.value, fetched: context.a2aCards?.get(resolved.value) };
}

/** The entry with what the card gives filled in where the file is silent (the file's fields win). */
function withCardFields(agent: RawAgent, url: string, fetched: FetchedA2aCard | undefined): RawAgent {
  const card = fetched?.ok ? fetched.card : undefined;
  const skills = card?.skills ?? [];
  const unique = (values: readonly string[]) => [...new Set(values.map((value) => value.trim()).filter((value) => value !== ''))];
  const description = card
    ? [card.description, ...skills.map((skill) => [skill.name, skill.description].filter(Boolean).join(': '))].filter(Boolean).join('\n').slice(0, 4000)
    : '';
  return {
    ...agent,
    name: agent.name ?? (card?.name?.trim() || agent.id),
    description: agent.description ?? (description || agent.id),
    examples: agent.examples ?? unique(skills.flatMap((skill) => skill.examples ?? [])),
    keywords: agent.keywords ?? unique(skills.flatMap((skill) => [...(skill.tags ?? []), skill.name ?? ''])),
    endpoint: { ...(isRecord(agent.endpoint) ? agent.endpoint : {}), url: (isRecord(agent.endpoint) && agent.endpoint.url) || url, protocol: (isRecord(agent.endpoint) && agent.endpoint.protocol) || 'a2a' },
  };
}

/** Input and output media types of a card: its defaults plus every skill's. */
function modesOf(fetched: Extract<FetchedA2aCard, { ok: true }>): { inputModes: string[]; outputModes: string[] } {
  const { card } = fetched;
  const skills = card.skills ?? [];
  return {
    inputModes: [...new Set([...(card.defaultInputModes ?? []), ...skills.flatMap((skill) => skill.inputModes ?? [])])],
    outputModes: [...new Set([...(card.defaultOutputModes ?? []), ...skills.flatMap((skill) => skill.outputModes ?? [])])],
  };
}

/** A write is never cached, so `side_effects: true` rules out `cache_ttl_s`. */
function checkCaching(agent: RawAgent, source: YamlSource, at: (...segments: (string | number)[]) => string): Findings {
  const issues: ConfigIssue[] = [];
  if (agent.side_effects === true && agent.cache_ttl_s !== undefined) {
    issues.push(source.issueAt(at('cache_ttl_s'), `agent "${agent.id}" has side_effects: true and cache_ttl_s; a write is never cached, remove cache_ttl_s`));
  }
  // A stale answer is a cached one served late: without a cache there is nothing to serve, and a write is never replayed.
  if (agent.stale_if_error_s !== undefined && agent.side_effects === true) {
    issues.push(source.issueAt(at('stale_if_error_s'), `agent "${agent.id}" has side_effects: true and stale_if_error_s; a write is never answered from cache, remove stale_if_error_s`));
  } else if (agent.stale_if_error_s !== undefined && agent.cache_ttl_s === undefined) {
    issues.push(source.issueAt(at('stale_if_error_s'), `agent "${agent.id}" has stale_if_error_s without cache_ttl_s; only cached replies can be served stale, add cache_ttl_s`));
  }
  return { issues, warnings: [] };
}

/** The agent-level `fe_wigdets_suggestion` list: deprecated, and index-aligned with the keys. */
function checkLegacyWidgetList(
  legacyWidgets: readonly string[] | undefined,
  keyCount: number,
  source: YamlSource,
  at: (...segments: (string | number)[]) => string,
): Findings {
  if (legacyWidgets === undefined) return { issues: [], warnings: [] };
  const warnings = [source.issueAt(at('fe_wigdets_suggestion'), '`fe_wigdets_suggestion` is deprecated: put `widget` on each required semantic key', { key: true })];
  const issues =
    legacyWidgets.length === keyCount
      ? []
      : [
          source.issueAt(
            at('fe_wigdets_suggestion'),
            `fe_wigdets_suggestion has ${legacyWidgets.length} entries but required_semantic_keys has ${keyCount}; they are index-aligned`,
          ),
        ];
  return { issues, warnings };
}

function buildKeys(
  agent: RawAgent,
  rawKeys: readonly RawKey[],
  legacyWidgets: readonly string[] | undefined,
  context: CardContext,
  at: (...segments: (string | number)[]) => string,
): Checked<SemanticKeySpec[]> {
  const { source, isMalformed } = context;
  const issues: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  const seenKeys = new Set<string>();
  const requiredKeys: SemanticKeySpec[] = [];
  rawKeys.forEach((rawKey, keyIndex) => {
    if (isMalformed(at('required_semantic_keys', keyIndex))) return;
    if (seenKeys.has(rawKey.key)) {
      issues.push(source.issueAt(at('required_semantic_keys', keyIndex, 'key'), `duplicate semantic key "${rawKey.key}" in agent "${agent.id}"`));
    }
    seenKeys.add(rawKey.key);
    if (rawKey.fe_wigdets_suggestion !== undefined) {
      warnings.push(
        source.issueAt(at('required_semantic_keys', keyIndex, 'fe_wigdets_suggestion'), '`fe_wigdets_suggestion` is deprecated: rename it to `widget`', { key: true }),
      );
    }
    // "" in the seed's index-aligned list is a placeholder, so it falls through to the dictionary.
    const widget = rawKey.widget ?? rawKey.fe_wigdets_suggestion ?? (legacyWidgets?.[keyIndex] || undefined) ?? context.widgets[rawKey.key] ?? '';
    const normalised = normaliseExtract(rawKey.extract);
    if ('problems' in normalised) {
      for (const problem of normalised.problems) {
        const pointer = problem.field === null ? at('required_semantic_keys', keyIndex, 'extract') : at('required_semantic_keys', keyIndex, 'extract', problem.field);
        issues.push(source.issueAt(pointer, problem.message));
      }
      return;
    }
    const description = readLocalized(rawKey.description);
    requiredKeys.push({
      key: rawKey.key,
      description: description.text,
      ...(Object.keys(description.byLanguage).length > 0 ? { descriptions: description.byLanguage } : {}),
      widget,
      extract: normalised.spec,
      ...(rawKey.remember === true ? { remember: true } : {}),
    });
  });
  return { value: issues.length > 0 ? undefined : requiredKeys, issues, warnings };
}

/** `name` / `description` as default texts, plus the per-language maps when the file gives them. */
function localizedFields(agent: RawAgent): Pick<AgentCard, 'name' | 'description' | 'names' | 'descriptions'> {
  const name = readLocalized(agent.name);
  const description = readLocalized(agent.description);
  return {
    name: name.text,
    description: description.text,
    ...(Object.keys(name.byLanguage).length > 0 ? { names: name.byLanguage } : {}),
    ...(Object.keys(description.byLanguage).length > 0 ? { descriptions: description.byLanguage } : {}),
  };
}
