/**
 * Builds one agent's capability card from its raw entry: endpoint, required
 * semantic keys with widgets resolved (key → legacy list → `widgets`
 * dictionary → ""), normalised extract specs and compiled schemas.
 */
import { readLocalized } from './localized-text.js';
import { buildEndpoint } from './build-endpoint.js';
import type { PrivateAddressCheck } from './private-address.js';
import { normaliseExtract } from './extract-spec.js';
import { mergeFindings, type Checked, type Findings } from './findings.js';
import { isRecord, type RawAgent, type RawKey } from './raw-config.js';
import type { SchemaCompiler } from './schema-compiler.js';
import type { AgentCard, ConfigIssue, SemanticKeySpec, SupervisorSettings } from './types.js';
import { joinPointer, type YamlSource } from './yaml-source.js';

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
}

/** The card for `agents[index]`, or the issues that stop it being built. */
export function buildCard(agent: RawAgent, index: number, context: CardContext): Checked<AgentCard> {
  const { source, isMalformed } = context;
  const at = (...segments: (string | number)[]) => joinPointer(['agents', index, ...segments]);

  const endpoint =
    isMalformed(at('endpoint')) || !isRecord(agent.endpoint)
      ? { value: undefined, issues: [], warnings: [] }
      : buildEndpoint(agent, {
          source,
          env: context.env,
          defaultTimeoutMs: context.supervisor.defaultTimeoutMs,
          allowPrivateEndpoints: context.supervisor.allowPrivateEndpoints,
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
  const card: AgentCard = {
    id: agent.id,
    ...localizedFields(agent),
    enabled: agent.enabled ?? true,
    examples: agent.examples ?? [],
    keywords: agent.keywords ?? [],
    dependsOn: agent.depends_on ?? [],
    endpoint: endpoint.value,
    requiredKeys: keys.value ?? [],
    ...(agent.side_effects === true ? { sideEffects: true } : {}),
    ...(agent.cache_ttl_s !== undefined ? { cacheTtlS: agent.cache_ttl_s } : {}),
    ...(agent.input_schema ? { inputSchema: agent.input_schema, validateInput: input.value } : {}),
    ...(agent.output_schema ? { outputSchema: agent.output_schema, validateOutput: output.value } : {}),
  };
  return { value: card, ...findings };
}

/** A write is never cached, so `side_effects: true` rules out `cache_ttl_s`. */
function checkCaching(agent: RawAgent, source: YamlSource, at: (...segments: (string | number)[]) => string): Findings {
  if (agent.side_effects !== true || agent.cache_ttl_s === undefined) return { issues: [], warnings: [] };
  return {
    issues: [source.issueAt(at('cache_ttl_s'), `agent "${agent.id}" has side_effects: true and cache_ttl_s; a write is never cached, remove cache_ttl_s`)],
    warnings: [],
  };
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
