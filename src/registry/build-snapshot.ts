/**
 * Cross-checks a schema-valid registry document and builds the frozen
 * snapshot: unique ids, existing and acyclic `depends_on`, resolved widgets,
 * compiled input/output schemas, normalised extract specs, resolved `${VAR}`s.
 * Every problem is collected; a snapshot is only built when there are none.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { closestName, describeAjvErrors } from './config-schema.js';
import { interpolateEnv } from './env-interpolation.js';
import { normaliseExtract, type RawExtract } from './extract-spec.js';
import type {
  AgentCard,
  AgentEndpoint,
  AgentProtocol,
  ConfigIssue,
  RegistrySnapshot,
  SemanticKeySpec,
  SupervisorSettings,
} from './types.js';
import { joinPointer, type YamlSource } from './yaml-source.js';

const addFormats = addFormatsModule.default;

/** Supervisor defaults (CONTRACT §1). */
export const SUPERVISOR_DEFAULTS: SupervisorSettings = Object.freeze({
  memoryMaxHistory: 5,
  maxParallel: 4,
  defaultTimeoutMs: 15000,
  escalateAfterFailures: 2,
  wordLists: Object.freeze({ sensitive: [], abusive: [], escalation: [] }),
  verify: Object.freeze({ enabled: true, maxRetries: 1 }),
  answerCacheTtlS: 300,
});

/** Endpoint defaults other than the timeout (which comes from the supervisor). */
export const ENDPOINT_DEFAULTS = Object.freeze({ protocol: 'http-json' as AgentProtocol, retries: 1 });

interface RawKey {
  key: string;
  description: string;
  widget?: string;
  fe_wigdets_suggestion?: string;
  extract?: RawExtract;
}

interface RawAgent {
  id: string;
  name: string;
  description: string;
  enabled?: boolean;
  examples?: string[];
  keywords?: string[];
  depends_on?: string[];
  endpoint: { url: string; protocol?: AgentProtocol; timeout_ms?: number; retries?: number; headers?: Record<string, string> };
  required_semantic_keys?: RawKey[];
  fe_wigdets_suggestion?: string[];
  input_schema?: Record<string, unknown>;
  output_schema?: Record<string, unknown>;
  side_effects?: boolean;
  cache_ttl_s?: number;
}

interface RawConfig {
  version: 1;
  supervisor?: {
    memory_max_history?: number;
    max_parallel?: number;
    default_timeout_ms?: number;
    escalate_after_failures?: number;
    word_lists?: { sensitive?: string[]; abusive?: string[]; escalation?: string[] };
    verify?: { enabled?: boolean; max_retries?: number };
    answer_cache_ttl_s?: number;
  };
  widgets?: Record<string, string>;
  fe_wigdets_suggestion?: Record<string, string>;
  agents: RawAgent[];
}

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
}

/**
 * Compiled input/output validators kept between reloads, keyed by the schema's
 * JSON text, so an edit to one agent does not recompile every agent's schemas
 * (compiling is most of a reload's cost). A validator is a pure function of its
 * schema, so sharing one between snapshots is safe. After each good load only
 * the entries that snapshot uses are kept.
 */
export type ValidatorCache = Map<string, { validate: ValidateFunction; warnings: readonly string[] }>;

/** A fresh, empty validator cache (one per live registry). */
export function createValidatorCache(): ValidatorCache {
  return new Map();
}

/** Result of cross-checking and building. */
export type BuildResult =
  | { ok: true; snapshot: RegistrySnapshot; warnings: ConfigIssue[] }
  | { ok: false; issues: ConfigIssue[]; warnings: ConfigIssue[] };

/** Builds a snapshot from a document that already passed the JSON Schema. */
export function buildSnapshot(source: YamlSource, options: BuildOptions): BuildResult {
  const config = source.data as RawConfig;
  const issues: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];

  const supervisor: SupervisorSettings = {
    memoryMaxHistory: config.supervisor?.memory_max_history ?? SUPERVISOR_DEFAULTS.memoryMaxHistory,
    maxParallel: config.supervisor?.max_parallel ?? SUPERVISOR_DEFAULTS.maxParallel,
    defaultTimeoutMs: config.supervisor?.default_timeout_ms ?? SUPERVISOR_DEFAULTS.defaultTimeoutMs,
    escalateAfterFailures: config.supervisor?.escalate_after_failures ?? SUPERVISOR_DEFAULTS.escalateAfterFailures,
    wordLists: {
      sensitive: [...(config.supervisor?.word_lists?.sensitive ?? [])],
      abusive: [...(config.supervisor?.word_lists?.abusive ?? [])],
      escalation: [...(config.supervisor?.word_lists?.escalation ?? [])],
    },
    verify: {
      enabled: config.supervisor?.verify?.enabled ?? SUPERVISOR_DEFAULTS.verify.enabled,
      maxRetries: config.supervisor?.verify?.max_retries ?? SUPERVISOR_DEFAULTS.verify.maxRetries,
    },
    answerCacheTtlS: config.supervisor?.answer_cache_ttl_s ?? SUPERVISOR_DEFAULTS.answerCacheTtlS,
  };

  if (config.fe_wigdets_suggestion !== undefined) {
    warnings.push(source.issueAt('/fe_wigdets_suggestion', '`fe_wigdets_suggestion` is deprecated: rename it to `widgets`', { key: true }));
  }
  const widgets: Record<string, string> = { ...config.fe_wigdets_suggestion, ...config.widgets };

  // Unique ids.
  const firstIndexById = new Map<string, number>();
  config.agents.forEach((agent, index) => {
    if (!isRecord(agent) || typeof agent.id !== 'string') return;
    const first = firstIndexById.get(agent.id);
    if (first === undefined) {
      firstIndexById.set(agent.id, index);
    } else {
      const firstLine = source.positionOf(joinPointer(['agents', first, 'id'])).line;
      issues.push(source.issueAt(joinPointer(['agents', index, 'id']), `duplicate agent id "${agent.id}" (first defined at line ${firstLine})`));
    }
  });
  const knownIds = [...firstIndexById.keys()];

  // depends_on: exists, not disabled (warning), no cycle.
  config.agents.forEach((agent, index) => {
    if (!isRecord(agent) || typeof agent.id !== 'string') return;
    dependencyList(agent).forEach((dependency, dependencyIndex) => {
      if (typeof dependency !== 'string') return;
      const pointer = joinPointer(['agents', index, 'depends_on', dependencyIndex]);
      const dependencyIndexInFile = firstIndexById.get(dependency);
      if (dependencyIndexInFile === undefined) {
        const suggestion = closestName(dependency, knownIds);
        const hint = suggestion ? ` (did you mean "${suggestion}"?)` : ` (known: ${knownIds.join(', ') || 'none'})`;
        issues.push(source.issueAt(pointer, `"${agent.id}" depends on unknown agent "${dependency}"${hint}`));
      } else if (config.agents[dependencyIndexInFile]?.enabled === false && agent.enabled !== false) {
        warnings.push(source.issueAt(pointer, `"${agent.id}" depends on disabled agent "${dependency}"`));
      }
    });
  });
  for (const cycle of findCycles(config.agents, firstIndexById)) {
    const start = cycle[0] as string;
    const startIndex = firstIndexById.get(start) as number;
    const next = cycle[1] as string;
    const dependencyIndex = dependencyList(config.agents[startIndex]).indexOf(next);
    issues.push(
      source.issueAt(joinPointer(['agents', startIndex, 'depends_on', dependencyIndex]), `dependency cycle: ${cycle.join(' → ')}`),
    );
  }

  const shapeIssuePointers = options.shapeIssuePointers ?? [];
  const isMalformed = (pointer: string): boolean =>
    shapeIssuePointers.some((issuePointer) => issuePointer === pointer || issuePointer.startsWith(`${pointer}/`));
  const schemaCompiler = createSchemaCompiler(options.validatorCache);
  const agents: AgentCard[] = [];
  config.agents.forEach((agent, index) => {
    if (!isRecord(agent)) return;
    const card = buildCard(agent, index, { source, supervisor, widgets, env: options.env, issues, warnings, schemaCompiler, isMalformed });
    if (card && !isMalformed(joinPointer(['agents', index]))) agents.push(card);
  });

  if (config.agents.length === 0) {
    warnings.push(source.issueAt('/agents', 'no agents are registered: every request will be answered directly'));
  } else if (config.agents.every((agent) => isRecord(agent) && agent.enabled === false)) {
    warnings.push(source.issueAt('/agents', 'every agent is disabled: every request will be answered directly'));
  }

  if (issues.length > 0) return { ok: false, issues, warnings };
  schemaCompiler.pruneCache();

  const byId = new FrozenMap(agents.map((card) => [card.id, card] as const));
  const snapshot: RegistrySnapshot = {
    version: options.version,
    loadedAt: (options.loadedAt ?? new Date()).toISOString(),
    sourcePath: options.sourcePath,
    supervisor,
    widgets,
    agents,
    byId,
    enabledAgents: agents.filter((card) => card.enabled),
  };
  return { ok: true, snapshot: deepFreeze(snapshot), warnings };
}

interface CardContext {
  source: YamlSource;
  supervisor: SupervisorSettings;
  widgets: Readonly<Record<string, string>>;
  env: Readonly<Record<string, string | undefined>>;
  issues: ConfigIssue[];
  warnings: ConfigIssue[];
  schemaCompiler: SchemaCompiler;
  isMalformed: (pointer: string) => boolean;
}

function buildCard(agent: RawAgent, index: number, context: CardContext): AgentCard | undefined {
  const { source, issues, warnings } = context;
  const at = (...segments: (string | number)[]) => joinPointer(['agents', index, ...segments]);
  const issueCountBefore = issues.length;

  const { isMalformed } = context;
  const endpoint = isMalformed(at('endpoint')) || !isRecord(agent.endpoint) ? undefined : buildEndpoint(agent, at, context);

  const rawKeys = Array.isArray(agent.required_semantic_keys) ? agent.required_semantic_keys : [];
  const legacyWidgets = isMalformed(at('fe_wigdets_suggestion')) ? undefined : agent.fe_wigdets_suggestion;
  if (legacyWidgets !== undefined) {
    warnings.push(
      source.issueAt(at('fe_wigdets_suggestion'), '`fe_wigdets_suggestion` is deprecated: put `widget` on each required semantic key', { key: true }),
    );
    if (legacyWidgets.length !== rawKeys.length) {
      issues.push(
        source.issueAt(
          at('fe_wigdets_suggestion'),
          `fe_wigdets_suggestion has ${legacyWidgets.length} entries but required_semantic_keys has ${rawKeys.length}; they are index-aligned`,
        ),
      );
    }
  }

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
    requiredKeys.push({ key: rawKey.key, description: rawKey.description, widget, extract: normalised.spec });
  });

  const validateInput = agent.input_schema && !isMalformed(at('input_schema')) ? context.schemaCompiler.compile(agent.input_schema, at('input_schema'), source, issues, warnings) : undefined;
  const validateOutput = agent.output_schema && !isMalformed(at('output_schema')) ? context.schemaCompiler.compile(agent.output_schema, at('output_schema'), source, issues, warnings) : undefined;

  if (agent.side_effects === true && agent.cache_ttl_s !== undefined) {
    issues.push(source.issueAt(at('cache_ttl_s'), `agent "${agent.id}" has side_effects: true and cache_ttl_s; a write is never cached, remove cache_ttl_s`));
  }

  if (issues.length > issueCountBefore || endpoint === undefined) return undefined;
  return {
    id: agent.id,
    name: agent.name,
    description: agent.description,
    enabled: agent.enabled ?? true,
    examples: agent.examples ?? [],
    keywords: agent.keywords ?? [],
    dependsOn: agent.depends_on ?? [],
    endpoint,
    requiredKeys,
    ...(agent.side_effects === true ? { sideEffects: true } : {}),
    ...(agent.cache_ttl_s !== undefined ? { cacheTtlS: agent.cache_ttl_s } : {}),
    ...(agent.input_schema ? { inputSchema: agent.input_schema, validateInput } : {}),
    ...(agent.output_schema ? { outputSchema: agent.output_schema, validateOutput } : {}),
  };
}

function buildEndpoint(agent: RawAgent, at: (...segments: (string | number)[]) => string, context: CardContext): AgentEndpoint | undefined {
  const { source, issues, env } = context;
  let ok = true;
  const resolve = (template: string, pointer: string, what: string): string | undefined => {
    const result = interpolateEnv(template, env);
    if (result.ok) return result.value;
    ok = false;
    if (result.malformed !== undefined) {
      issues.push(source.issueAt(pointer, `malformed variable reference ${result.malformed} in ${what}: use \${NAME} or \${NAME:-default}`));
    }
    for (const name of result.missing) {
      issues.push(source.issueAt(pointer, `environment variable ${name} is not set (used in ${what}; set it or write \${${name}:-default})`));
    }
    return undefined;
  };

  const urlTemplate = agent.endpoint.url;
  const url = resolve(urlTemplate, at('endpoint', 'url'), `agent "${agent.id}" endpoint url`);
  if (url !== undefined) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      parsed = undefined;
    }
    // The message shows the template as written, never the resolved value.
    if (!parsed) {
      issues.push(source.issueAt(at('endpoint', 'url'), `endpoint url ${JSON.stringify(urlTemplate)} is not a valid absolute URL`));
      ok = false;
    } else if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      issues.push(source.issueAt(at('endpoint', 'url'), `endpoint url must use http or https, not ${parsed.protocol.replace(/:$/, '')}`));
      ok = false;
    }
  }

  const headers: Record<string, string> = {};
  for (const [name, template] of Object.entries(agent.endpoint.headers ?? {})) {
    const pointer = at('endpoint', 'headers', name);
    const value = resolve(template, pointer, `header ${name} of agent "${agent.id}"`);
    if (value === undefined) continue;
    if (/[\r\n\0]/.test(value)) {
      issues.push(source.issueAt(pointer, `header ${name} resolves to a value containing a line break or NUL`));
      ok = false;
      continue;
    }
    headers[name] = value;
  }

  if (!ok || url === undefined) return undefined;
  return {
    url,
    protocol: agent.endpoint.protocol ?? ENDPOINT_DEFAULTS.protocol,
    timeoutMs: agent.endpoint.timeout_ms ?? context.supervisor.defaultTimeoutMs,
    retries: agent.endpoint.retries ?? ENDPOINT_DEFAULTS.retries,
    headers,
  };
}

/** Depth-first search for dependency cycles; each cycle reported once, as ids ending where they started. */
function findCycles(agents: readonly RawAgent[], indexById: ReadonlyMap<string, number>): string[][] {
  const state = new Map<string, 'visiting' | 'done'>();
  const cycles: string[][] = [];
  const stack: string[] = [];
  const visit = (id: string): void => {
    state.set(id, 'visiting');
    stack.push(id);
    const agent = agents[indexById.get(id) as number];
    for (const dependency of dependencyList(agent)) {
      if (typeof dependency !== 'string' || !indexById.has(dependency)) continue;
      const dependencyState = state.get(dependency);
      if (dependencyState === 'visiting') {
        cycles.push([...stack.slice(stack.indexOf(dependency)), dependency]);
      } else if (dependencyState === undefined) {
        visit(dependency);
      }
    }
    stack.pop();
    state.set(id, 'done');
  };
  for (const id of indexById.keys()) if (!state.has(id)) visit(id);
  return cycles;
}

function isRecord(value: unknown): value is Record<string, unknown> & RawAgent {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `depends_on` of an agent whose shape may be invalid. */
function dependencyList(agent: RawAgent | undefined): unknown[] {
  return isRecord(agent) && Array.isArray(agent.depends_on) ? agent.depends_on : [];
}

interface SchemaCompiler {
  compile(schema: Record<string, unknown>, pointer: string, source: YamlSource, issues: ConfigIssue[], warnings: ConfigIssue[]): ValidateFunction | undefined;
  /** Drops cached validators this build did not use. */
  pruneCache(): void;
}

/**
 * Compiles agents' JSON Schemas. Misses are compiled by one ajv instance per
 * build (created on the first miss), so validators never pile up in a shared
 * instance; hits come from the cache.
 */
function createSchemaCompiler(cache: ValidatorCache = new Map()): SchemaCompiler {
  const strictWarnings: string[] = [];
  const usedKeys = new Set<string>();
  let ajv: Ajv | undefined;
  const instance = (): Ajv => {
    if (!ajv) {
      ajv = new Ajv({
        allErrors: true,
        verbose: true,
        strict: 'log',
        logger: { log: () => undefined, warn: (...parts: unknown[]) => strictWarnings.push(parts.map(String).join(' ')), error: () => undefined },
      });
      addFormats(ajv);
    }
    return ajv;
  };
  return {
    compile(schema, pointer, source, issues, warnings) {
      const key = JSON.stringify(schema);
      const cached = cache.get(key);
      if (cached) {
        usedKeys.add(key);
        for (const warning of cached.warnings) warnings.push(source.issueAt(pointer, `JSON Schema: ${warning}`));
        return cached.validate;
      }
      const compiler = instance();
      if (!compiler.validateSchema(schema)) {
        issues.push(
          ...describeAjvErrors(compiler.errors ?? [], source, pointer).map((issue) => ({ ...issue, message: `not a valid JSON Schema: ${issue.message}` })),
        );
        return undefined;
      }
      strictWarnings.length = 0;
      try {
        const validate = compiler.compile(schema);
        const schemaWarnings = [...strictWarnings];
        for (const warning of schemaWarnings) warnings.push(source.issueAt(pointer, `JSON Schema: ${warning}`));
        cache.set(key, { validate, warnings: schemaWarnings });
        usedKeys.add(key);
        return validate;
      } catch (error) {
        issues.push(source.issueAt(pointer, `JSON Schema does not compile: ${(error as Error).message}`));
        return undefined;
      }
    },
    pruneCache() {
      for (const key of cache.keys()) if (!usedKeys.has(key)) cache.delete(key);
    },
  };
}

/** A Map whose mutators throw, so a frozen snapshot's `byId` stays as built. */
class FrozenMap<K, V> extends Map<K, V> {
  #sealed = false;
  constructor(entries: Iterable<readonly [K, V]>) {
    super();
    for (const [key, value] of entries) super.set(key, value);
    this.#sealed = true;
  }
  override set(key: K, value: V): this {
    if (this.#sealed) throw new TypeError('registry snapshot is read-only');
    return super.set(key, value);
  }
  override delete(): boolean {
    throw new TypeError('registry snapshot is read-only');
  }
  override clear(): void {
    throw new TypeError('registry snapshot is read-only');
  }
}

/**
 * Freezes plain objects and arrays recursively. Functions (ajv validators write
 * `.errors`) and RegExps (`lastIndex`) stay unfrozen: freezing them breaks them.
 */
function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value) || value instanceof RegExp) return value;
  if (value instanceof Map) {
    for (const entry of value.values()) deepFreeze(entry);
    return Object.freeze(value);
  }
  for (const child of Object.values(value as Record<string, unknown>)) {
    if (typeof child !== 'function') deepFreeze(child);
  }
  return Object.freeze(value);
}
