import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { UserError } from '../errors.js';
import { createConfigShapeValidator } from './config-schema.js';
import { createValidatorCache } from './schema-compiler.js';
import { configInvalidError, formatIssue, loadRegistryFile, loadRegistryText, type LoadResult } from './load-registry.js';
import type { ConfigIssue } from './types.js';
import { machineTurnCapacity } from './machine-capacity.js';

const FILE = 'agents_config.yaml';

/** A valid one-agent registry; the broken cases below are edits of it. */
const VALID = `version: 1
agents:
  - id: hotel_agent
    name: 酒店服务
    description: 酒店查询与预订
    endpoint:
      url: http://127.0.0.1:7101/invoke
    required_semantic_keys:
      - key: city
        description: 入住城市
        extract: { enum: [北京, 上海] }
`;

const shapeValidator = createConfigShapeValidator();

function load(text: string, env: Record<string, string | undefined> = {}): LoadResult {
  return loadRegistryText(text, FILE, { env, shapeValidator });
}

function issuesOf(text: string, env: Record<string, string | undefined> = {}): ConfigIssue[] {
  const result = load(text, env);
  if (result.ok) throw new Error('expected the registry to be rejected');
  return result.issues;
}

interface BrokenCase {
  name: string;
  yaml: string;
  message: RegExp;
  line: number;
  col?: number;
  pointer?: string;
  env?: Record<string, string>;
}

const BROKEN: BrokenCase[] = [
  {
    name: 'YAML syntax error (unclosed flow sequence)',
    yaml: `version: 1\nagents:\n  - id: a\n    keywords: [x, y\n`,
    message: /YAML syntax error/,
    line: 5,
  },
  {
    name: 'YAML duplicate mapping key',
    yaml: `version: 1\nagents: []\nagents: []\n`,
    message: /YAML syntax error: Map keys must be unique/,
    line: 3,
    col: 1,
  },
  {
    name: 'empty file',
    yaml: `# nothing here\n`,
    message: /the file is empty/,
    line: 1,
  },
  {
    name: 'wrong file version',
    yaml: VALID.replace('version: 1', 'version: 2'),
    message: /"version" must be 1, got 2/,
    line: 1,
    col: 10,
    pointer: '/version',
  },
  {
    name: 'agents is not a list',
    yaml: `version: 1\nagents:\n  hotel_agent: {}\n`,
    message: /"agents" must be an array, got a mapping/,
    line: 3,
    col: 3,
    pointer: '/agents',
  },
  {
    name: 'missing required field (endpoint)',
    yaml: `version: 1\nagents:\n  - id: hotel_agent\n    name: 酒店服务\n    description: 酒店\n`,
    message: /missing required property "endpoint"/,
    line: 3,
    col: 5,
    pointer: '/agents/0',
  },
  {
    name: 'missing required key description',
    yaml: VALID.replace('        description: 入住城市\n', ''),
    message: /missing required property "description"/,
    line: 9,
    col: 9,
    pointer: '/agents/0/required_semantic_keys/0',
  },
  {
    name: 'wrong type (enabled as string)',
    yaml: VALID.replace('    description: 酒店查询与预订\n', '    description: 酒店查询与预订\n    enabled: "yes"\n'),
    message: /"enabled" must be a boolean, got a string/,
    line: 6,
    col: 14,
    pointer: '/agents/0/enabled',
  },
  {
    name: 'wrong type (keywords as string)',
    yaml: VALID.replace('    description: 酒店查询与预订\n', '    description: 酒店查询与预订\n    keywords: 酒店\n'),
    message: /"keywords" must be an array, got a string/,
    line: 6,
    col: 15,
  },
  {
    name: 'bad id pattern',
    yaml: VALID.replace('id: hotel_agent', 'id: Hotel-Agent'),
    message: /"id" "Hotel-Agent" does not match \^\[a-z0-9_\]\+\$/,
    line: 3,
    col: 9,
    pointer: '/agents/0/id',
  },
  {
    name: 'duplicate agent ids',
    yaml: `${VALID}  - id: hotel_agent\n    name: 另一个\n    description: 重复\n    endpoint: { url: "http://127.0.0.1:7109/invoke" }\n`,
    message: /duplicate agent id "hotel_agent" \(first defined at line 3\)/,
    line: 12,
    col: 9,
    pointer: '/agents/1/id',
  },
  {
    name: 'unknown depends_on (with suggestion)',
    yaml: VALID.replace('    endpoint:\n', '    depends_on: [hotel_agnet_x]\n    endpoint:\n').replace(
      'id: hotel_agent',
      'id: hotel_agent',
    ),
    message: /"hotel_agent" depends on unknown agent "hotel_agnet_x" \(did you mean "hotel_agent"\?\)/,
    line: 6,
    col: 18,
    pointer: '/agents/0/depends_on/0',
  },
  {
    name: 'dependency cycle is named',
    yaml: `version: 1
agents:
  - id: a
    name: A
    description: A
    depends_on: [b]
    endpoint: { url: "http://127.0.0.1:1/a" }
  - id: b
    name: B
    description: B
    depends_on: [c]
    endpoint: { url: "http://127.0.0.1:1/b" }
  - id: c
    name: C
    description: C
    depends_on: [a]
    endpoint: { url: "http://127.0.0.1:1/c" }
`,
    message: /dependency cycle: a → b → c → a/,
    line: 6,
    col: 18,
    pointer: '/agents/0/depends_on/0',
  },
  {
    name: 'self dependency is a cycle',
    yaml: VALID.replace('    endpoint:\n', '    depends_on: [hotel_agent]\n    endpoint:\n'),
    message: /dependency cycle: hotel_agent → hotel_agent/,
    line: 6,
    col: 18,
  },
  {
    name: 'bad regex',
    yaml: VALID.replace('extract: { enum: [北京, 上海] }', "extract: { pattern: '(北京|上海' }"),
    message: /invalid regular expression: .*Unterminated group/,
    line: 11,
    col: 29,
    pointer: '/agents/0/required_semantic_keys/0/extract/pattern',
  },
  {
    name: 'stateful regex flag',
    yaml: VALID.replace('extract: { enum: [北京, 上海] }', "extract: { pattern: '北京', flags: g }"),
    message: /"flags" "g" does not match/,
    line: 11,
    col: 42,
  },
  {
    name: 'empty enum',
    yaml: VALID.replace('extract: { enum: [北京, 上海] }', 'extract: { enum: [] }'),
    message: /the enum list is empty/,
    line: 11,
    col: 26,
    pointer: '/agents/0/required_semantic_keys/0/extract/enum',
  },
  {
    name: 'type enum without a list',
    yaml: VALID.replace('extract: { enum: [北京, 上海] }', 'extract: { type: enum }'),
    message: /type enum needs a non-empty `enum` list/,
    line: 11,
    col: 18,
    pointer: '/agents/0/required_semantic_keys/0/extract',
  },
  {
    name: 'unknown extract type',
    yaml: VALID.replace('extract: { enum: [北京, 上海] }', 'extract: { type: colour }'),
    message: /"type" must be one of "date", "number", "phone", "email", "enum", "pattern", "text", got "colour"/,
    line: 11,
    col: 26,
  },
  {
    name: 'number extract with min above max',
    yaml: VALID.replace('extract: { enum: [北京, 上海] }', 'extract: { type: number, min: 9, max: 1 }'),
    message: /min \(9\) is greater than max \(1\)/,
    line: 11,
    col: 39,
  },
  {
    name: 'uncompilable input_schema (bad type)',
    yaml: `${VALID}    input_schema:\n      type: object\n      properties:\n        city: { type: strin }\n`,
    message: /not a valid JSON Schema: "type" must be one of .*got "strin"/,
    line: 15,
    col: 23,
    pointer: '/agents/0/input_schema/properties/city/type',
  },
  {
    name: 'output_schema with a dangling $ref',
    yaml: `${VALID}    output_schema: { $ref: "#/definitions/missing" }\n`,
    message: /JSON Schema does not compile: can't resolve reference #\/definitions\/missing/,
    line: 12,
    col: 20,
    pointer: '/agents/0/output_schema',
  },
  {
    name: 'missing env var in a header',
    yaml: VALID.replace('      url: http://127.0.0.1:7101/invoke\n', '      url: http://127.0.0.1:7101/invoke\n      headers:\n        Authorization: "Bearer ${HOTEL_TOKEN}"\n'),
    message: /environment variable HOTEL_TOKEN is not set \(used in header Authorization of agent "hotel_agent"/,
    line: 9,
    col: 24,
    pointer: '/agents/0/endpoint/headers/Authorization',
  },
  {
    name: 'missing env var in the url',
    yaml: VALID.replace('url: http://127.0.0.1:7101/invoke', 'url: "http://${HOTEL_HOST}/invoke"'),
    message: /environment variable HOTEL_HOST is not set/,
    line: 7,
    col: 12,
  },
  {
    name: 'url that is not http(s)',
    yaml: VALID.replace('url: http://127.0.0.1:7101/invoke', 'url: ftp://127.0.0.1/invoke'),
    message: /endpoint url must use http or https, not ftp/,
    line: 7,
    col: 12,
  },
  {
    name: 'url that is not a URL',
    yaml: VALID.replace('url: http://127.0.0.1:7101/invoke', 'url: not a url'),
    message: /endpoint url "not a url" is not a valid absolute URL/,
    line: 7,
    col: 12,
  },
  {
    name: 'bad protocol',
    yaml: VALID.replace('      url: http://127.0.0.1:7101/invoke\n', '      url: http://127.0.0.1:7101/invoke\n      protocol: grpc\n'),
    message: /"protocol" must be one of "http-json", "http-sse", "a2a", got "grpc"/,
    line: 8,
    col: 17,
    pointer: '/agents/0/endpoint/protocol',
  },
  {
    name: 'negative timeout',
    yaml: VALID.replace('      url: http://127.0.0.1:7101/invoke\n', '      url: http://127.0.0.1:7101/invoke\n      timeout_ms: -100\n'),
    message: /"timeout_ms" must be >= 1, got -100/,
    line: 8,
    col: 19,
  },
  {
    name: 'negative retries',
    yaml: VALID.replace('      url: http://127.0.0.1:7101/invoke\n', '      url: http://127.0.0.1:7101/invoke\n      retries: -1\n'),
    message: /"retries" must be >= 0, got -1/,
    line: 8,
    col: 16,
  },
  {
    name: 'unknown top-level property (typo, with suggestion)',
    yaml: `${VALID}widget:\n  city: city_selector\n`,
    message: /unknown property "widget" \(did you mean "widgets"\?\)/,
    line: 12,
    col: 1,
    pointer: '/widget',
  },
  {
    name: 'unknown agent property',
    yaml: VALID.replace('    endpoint:\n', '    timeout: 5\n    endpoint:\n'),
    message: /unknown property "timeout"/,
    line: 6,
    col: 5,
    pointer: '/agents/0/timeout',
  },
  {
    name: 'unknown supervisor setting (typo)',
    yaml: `version: 1\nsupervisor:\n  max_paralel: 2\nagents: []\n`,
    message: /unknown property "max_paralel" \(did you mean "max_parallel"\?\)/,
    line: 3,
    col: 3,
  },
  {
    name: 'duplicate semantic key within an agent',
    yaml: `${VALID}      - key: city\n        description: 城市\n`,
    message: /duplicate semantic key "city" in agent "hotel_agent"/,
    line: 12,
    col: 14,
  },
  {
    name: 'index-aligned seed widget list of the wrong length',
    yaml: VALID.replace('    endpoint:\n', '    fe_wigdets_suggestion: [city_selector, date_picker]\n    endpoint:\n'),
    message: /fe_wigdets_suggestion has 2 entries but required_semantic_keys has 1/,
    line: 6,
    col: 28,
  },
];

describe('loadRegistryText: broken registries', () => {
  it('reports one YAML syntax error once, not the errors cascading from it', () => {
    const later = Array.from({ length: 30 }, (_, index) => `  - id: agent_${index}\n    name: "unclosed\n`).join('');
    const result = load(`version: 1\nagents:\n  - id: a\n    name: [unclosed\n    description: x\n${later}`);
    expect(result.ok).toBe(false);
    const issues = result.ok ? [] : result.issues;
    expect(issues).toHaveLength(1);
    expect(issues[0]?.message).toMatch(/^YAML syntax error: .*\(\d+ later errors not shown: fix this one first\)$/);
  });

  it('has at least 20 cases', () => {
    expect(BROKEN.length).toBeGreaterThanOrEqual(20);
  });

  it.each(BROKEN)('$name', (testCase) => {
    const issues = issuesOf(testCase.yaml, testCase.env);
    const match = issues.find((issue) => testCase.message.test(issue.message));
    expect(match, `issues were:\n${issues.map(formatIssue).join('\n')}`).toBeDefined();
    expect(match?.file).toBe(FILE);
    expect(match?.line).toBe(testCase.line);
    if (testCase.col !== undefined) expect(match?.col).toBe(testCase.col);
    if (testCase.pointer !== undefined) expect(match?.pointer).toBe(testCase.pointer);
  });

  it('reports every problem of a file at once, schema and cross-checks together, in line order', () => {
    const issues = issuesOf(`version: 1
supervisor:
  max_parallel: 0
agents:
  - id: a
    name: A
    description: A
    depends_on: [ghost]
    endpoint: { url: "http://127.0.0.1:1/a", protocol: smtp }
    required_semantic_keys:
      - key: k
        description: K
        extract: { pattern: "[" }
  - id: a
    name: A2
    description: A2
    endpoint: { url: "http://127.0.0.1:1/a2" }
`);
    const summary = issues.map((issue) => `${issue.line} ${issue.pointer}`);
    expect(summary).toEqual([
      '3 /supervisor/max_parallel',
      '8 /agents/0/depends_on/0',
      '9 /agents/0/endpoint/protocol',
      '13 /agents/0/required_semantic_keys/0/extract/pattern',
      '14 /agents/1/id',
    ]);
  });

  it('formats an issue as file:line:col  pointer  message', () => {
    const [issue] = issuesOf(VALID.replace('version: 1', 'version: 2'));
    expect(formatIssue(issue as ConfigIssue)).toBe('agents_config.yaml:1:10  /version  "version" must be 1, got 2');
  });

  it('builds a CONFIG_INVALID UserError listing every issue line', () => {
    const issues = issuesOf(VALID.replace('version: 1', 'version: 2').replace('id: hotel_agent', 'id: Bad'));
    const error = configInvalidError(FILE, issues);
    expect(error).toBeInstanceOf(UserError);
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain('agents_config.yaml:1:10  /version');
    expect(error.message).toContain('agents_config.yaml:3:9  /agents/0/id');
  });
});

describe('loadRegistryText: valid registries', () => {
  it('applies the documented defaults', () => {
    const result = load(VALID);
    if (!result.ok) throw new Error(result.issues.map(formatIssue).join('\n'));
    const { snapshot } = result;
    expect(snapshot.supervisor).toEqual({
      memoryMaxHistory: 5,
      maxParallel: 4,
      defaultTimeoutMs: 15000,
      maxConnectionsPerAgent: 256,
      maxConcurrentTurns: machineTurnCapacity(),
      escalateAfterFailures: 2,
      wordLists: { sensitive: [], abusive: [], escalation: [] },
      verify: { enabled: true, maxRetries: 1, judge: 'on_doubt' },
      answerCacheTtlS: 300,
      retentionDays: 90,
      maxDelegationDepth: 3,
      budgets: { maxSubtasks: 8, maxLlmTokens: 20000, maxTurnMs: 60000 },
      rateLimit: null,
      piiPatterns: [],
      allowPrivateEndpoints: false,
      pendingTtlS: 600,
      escalation: { emotionWords: [], emotionThreshold: 2.5 },
      circuitBreaker: { enabled: true, errorRate: 0.5, minCalls: 10, windowS: 60, openS: 300 },
    });
    const card = snapshot.byId.get('hotel_agent');
    expect(card?.enabled).toBe(true);
    expect(card?.endpoint).toEqual({
      url: 'http://127.0.0.1:7101/invoke',
      protocol: 'http-json',
      timeoutMs: 15000,
      retries: 1,
      maxConnections: 256,
      headers: {},
      circuitBreaker: { enabled: true, errorRate: 0.5, minCalls: 10, windowS: 60, openS: 300 },
    });
    expect(card?.examples).toEqual([]);
    expect(card?.dependsOn).toEqual([]);
    expect(snapshot.version).toMatch(/^[0-9a-f]{12}$/);
  });

  it('reads pending_ttl_s and escalation settings, resolving the webhook url from the environment', () => {
    const text = VALID.replace(
      'agents:',
      'supervisor:\n  pending_ttl_s: 30\n  escalation:\n    webhook_url: "${TICKET_URL}/tickets"\n    emotion_words: [气炸了]\n    emotion_threshold: 3\nagents:',
    ).replace('    description: 酒店查询与预订\n', '    description: 酒店查询与预订\n    side_effects: true\n');
    const result = load(text, { TICKET_URL: 'http://127.0.0.1:9/hook' });
    if (!result.ok) throw new Error(result.issues.map(formatIssue).join('\n'));
    expect(result.snapshot.supervisor.pendingTtlS).toBe(30);
    expect(result.snapshot.supervisor.escalation).toEqual({ webhookUrl: 'http://127.0.0.1:9/hook/tickets', emotionWords: ['气炸了'], emotionThreshold: 3 });
    expect(result.snapshot.byId.get('hotel_agent')?.sideEffects).toBe(true);
    const missing = load(text);
    expect(!missing.ok && missing.issues.map((issue) => issue.message).join('\n')).toMatch(/TICKET_URL is not set/);
  });

  it('takes the endpoint timeout default from the supervisor', () => {
    const result = load(VALID.replace('agents:', 'supervisor:\n  default_timeout_ms: 2500\nagents:'));
    expect(result.ok && result.snapshot.agents[0]?.endpoint.timeoutMs).toBe(2500);
  });

  it('normalises every extract form into the ExtractSpec union', () => {
    const text = `version: 1
agents:
  - id: a
    name: A
    description: A
    endpoint: { url: "http://127.0.0.1:1/a" }
    required_semantic_keys:
      - { key: k1, description: d, extract: { enum: [x, y, x] } }
      - { key: k2, description: d, extract: { type: enum, values: [z] } }
      - { key: k3, description: d, extract: { pattern: '从(北京|上海)', flags: i } }
      - { key: k4, description: d, extract: { type: date } }
      - { key: k5, description: d, extract: { type: number, min: 1 } }
      - { key: k6, description: d }
      - { key: k7, description: d, extract: { type: email } }
`;
    const result = load(text);
    if (!result.ok) throw new Error(result.issues.map(formatIssue).join('\n'));
    const specs = result.snapshot.agents[0]?.requiredKeys.map((spec) => spec.extract);
    expect(specs?.[0]).toEqual({ type: 'enum', values: ['x', 'y'] });
    expect(specs?.[1]).toEqual({ type: 'enum', values: ['z'] });
    expect(specs?.[2]).toMatchObject({ type: 'pattern', pattern: '从(北京|上海)', flags: 'i' });
    const pattern = specs?.[2];
    expect(pattern?.type === 'pattern' && pattern.matcher.findAll('从北京出发')[0]?.groups[0]).toBe('北京');
    expect(specs?.[3]).toEqual({ type: 'date' });
    expect(specs?.[4]).toEqual({ type: 'number', min: 1 });
    expect(specs?.[5]).toEqual({ type: 'text' });
    expect(specs?.[6]).toEqual({ type: 'email' });
  });

  it('resolves widgets: key spec, then the widgets dictionary, then ""', () => {
    const text = `version: 1
widgets: { city: city_selector, date: date_picker }
agents:
  - id: a
    name: A
    description: A
    endpoint: { url: "http://127.0.0.1:1/a" }
    required_semantic_keys:
      - { key: city, description: d, widget: map_picker }
      - { key: date, description: d }
      - { key: note, description: d }
`;
    const result = load(text);
    expect(result.ok && result.snapshot.agents[0]?.requiredKeys.map((spec) => spec.widget)).toEqual(['map_picker', 'date_picker', '']);
  });

  it('accepts the seed spelling fe_wigdets_suggestion with deprecation warnings', () => {
    const text = `version: 1
fe_wigdets_suggestion: { city: city_selector }
agents:
  - id: a
    name: A
    description: A
    endpoint: { url: "http://127.0.0.1:1/a" }
    fe_wigdets_suggestion: ["", date_picker, ""]
    required_semantic_keys:
      - { key: city, description: d }
      - { key: date, description: d }
      - { key: time, description: d, fe_wigdets_suggestion: time_picker }
`;
    const result = load(text);
    if (!result.ok) throw new Error(result.issues.map(formatIssue).join('\n'));
    // "" in the index-aligned list is a placeholder: the (aliased) dictionary still applies.
    expect(result.snapshot.agents[0]?.requiredKeys.map((spec) => spec.widget)).toEqual(['city_selector', 'date_picker', 'time_picker']);
    expect(result.warnings.map((warning) => [warning.line, warning.pointer])).toEqual([
      [2, '/fe_wigdets_suggestion'],
      [8, '/agents/0/fe_wigdets_suggestion'],
      [12, '/agents/0/required_semantic_keys/2/fe_wigdets_suggestion'],
    ]);
    expect(result.warnings.every((warning) => /deprecated/.test(warning.message))).toBe(true);
  });

  it('compiles input and output schemas once and puts the validators on the card', () => {
    const text = `${VALID}    input_schema:\n      type: object\n      required: [city]\n      properties:\n        city: { type: string }\n        day: { type: string, format: date }\n`;
    const result = load(text);
    if (!result.ok) throw new Error(result.issues.map(formatIssue).join('\n'));
    const card = result.snapshot.agents[0];
    expect(card?.validateInput?.({ city: '北京', day: '2026-12-01' })).toBe(true);
    expect(card?.validateInput?.({ city: '北京', day: 'tomorrow' })).toBe(false);
    expect(card?.validateInput?.({})).toBe(false);
    expect(card?.validateOutput).toBeUndefined();
  });

  it('reuses compiled validators across loads sharing a cache, and recompiles a changed schema', () => {
    const validatorCache = createValidatorCache();
    const withSchema = (type: string) => `${VALID}    input_schema: { type: object, properties: { city: { type: ${type} } } }\n    output_schema: { type: object }\n`;
    const first = loadRegistryText(withSchema('string'), FILE, { env: {}, validatorCache });
    const second = loadRegistryText(withSchema('string').replace('酒店查询与预订', '酒店'), FILE, { env: {}, validatorCache });
    const third = loadRegistryText(withSchema('integer'), FILE, { env: {}, validatorCache });
    if (!first.ok || !second.ok || !third.ok) throw new Error('fixtures must be valid');
    const [a, b, c] = [first, second, third].map((result) => result.snapshot.agents[0]);
    expect(b?.validateInput).toBe(a?.validateInput);
    expect(c?.validateInput).not.toBe(a?.validateInput);
    expect(c?.validateOutput).toBe(a?.validateOutput);
    expect(c?.validateInput?.({ city: 3 })).toBe(true);
    expect(a?.validateInput?.({ city: 3 })).toBe(false);
    // Only what the last good load uses is kept.
    expect(validatorCache.size).toBe(2);
  });

  it('warns about a dependency on a disabled agent without rejecting', () => {
    const text = `version: 1
agents:
  - { id: a, name: A, description: A, enabled: false, endpoint: { url: "http://127.0.0.1:1/a" } }
  - { id: b, name: B, description: B, depends_on: [a], endpoint: { url: "http://127.0.0.1:1/b" } }
`;
    const result = load(text);
    expect(result.ok).toBe(true);
    expect(result.warnings.map((warning) => warning.message)).toContain('"b" depends on disabled agent "a"');
    expect(result.ok && result.snapshot.enabledAgents.map((card) => card.id)).toEqual(['b']);
  });

  it('produces a deeply frozen snapshot whose byId cannot be changed', () => {
    const result = load(VALID);
    if (!result.ok) throw new Error('expected a valid registry');
    const { snapshot } = result;
    expect(Object.isFrozen(snapshot)).toBe(true);
    expect(Object.isFrozen(snapshot.agents[0]?.requiredKeys[0]?.extract)).toBe(true);
    expect(() => (snapshot.agents as unknown as unknown[]).push({})).toThrow(TypeError);
    expect(() => (snapshot.byId as Map<string, unknown>).set('x', {})).toThrow(TypeError);
    expect(() => (snapshot.byId as Map<string, unknown>).delete('hotel_agent')).toThrow(TypeError);
    expect(snapshot.byId.get('hotel_agent')).toBe(snapshot.agents[0]);
  });

  it('gives the same version to the same text and a different one to different text', () => {
    const first = load(VALID);
    const second = load(VALID);
    const third = load(VALID.replace('酒店查询与预订', '酒店预订'));
    expect(first.ok && second.ok && first.snapshot.version === second.snapshot.version).toBe(true);
    expect(first.ok && third.ok && first.snapshot.version !== third.snapshot.version).toBe(true);
  });
});

describe('loadRegistryFile', () => {
  it('loads both sample registries without warnings', async () => {
    for (const relative of ['../../agents_config.yaml', '../../examples/ecommerce/agents_config.yaml']) {
      const path = fileURLToPath(new URL(relative, import.meta.url));
      const result = await loadRegistryFile(path, { env: {} });
      if (!result.ok) throw new Error(result.issues.map(formatIssue).join('\n'));
      expect(result.warnings).toEqual([]);
    }
  });

  it('the travel sample has the agreed ids, ports, protocols and keys', async () => {
    const result = await loadRegistryFile(fileURLToPath(new URL('../../agents_config.yaml', import.meta.url)), { env: {} });
    if (!result.ok) throw new Error('sample must load');
    const summary = result.snapshot.agents.map((card) => [card.id, card.endpoint.url, card.endpoint.protocol, card.requiredKeys.map((spec) => `${spec.key}:${spec.widget}`)]);
    expect(summary).toEqual([
      ['hotel_agent', 'http://127.0.0.1:7101/invoke', 'http-json', ['city:city_selector', 'check_in_date:date_picker']],
      ['limo_agent', 'http://127.0.0.1:7102/invoke', 'http-json', ['airport:airport_selector', 'pickup_time:time_picker']],
      ['flight_agent', 'http://127.0.0.1:7103/invoke', 'http-json', ['origin:city_selector', 'destination:city_selector', 'date:date_picker']],
      ['weather_agent', 'http://127.0.0.1:7104/invoke', 'http-sse', ['city:city_selector']],
      ['exchange_agent', 'http://127.0.0.1:7105/.well-known/agent-card.json', 'a2a', ['currency:']],
    ]);
    expect(result.snapshot.byId.get('limo_agent')?.dependsOn).toEqual(['hotel_agent']);
    expect(result.snapshot.byId.get('hotel_agent')?.endpoint.headers).toEqual({ Authorization: 'Bearer demo-token' });
    const pickup = result.snapshot.byId.get('limo_agent')?.requiredKeys[1]?.extract;
    expect(pickup?.type === 'pattern' && pickup.matcher.test('明天早上7点首都机场接机')).toBe(true);
    expect(pickup?.type === 'pattern' && pickup.matcher.test('pickup at 9:30 PM')).toBe(true);
    const origin = result.snapshot.byId.get('flight_agent')?.requiredKeys[0]?.extract;
    expect(origin?.type === 'pattern' && origin.matcher.findAll('明天从上海飞北京')[0]?.groups[0]).toBe('上海');
  });

  it('the e-commerce sample has the agreed ids and ports', async () => {
    const result = await loadRegistryFile(fileURLToPath(new URL('../../examples/ecommerce/agents_config.yaml', import.meta.url)), { env: {} });
    if (!result.ok) throw new Error('sample must load');
    expect(result.snapshot.agents.map((card) => [card.id, new URL(card.endpoint.url).port])).toEqual([
      ['order_agent', '7201'],
      ['logistics_agent', '7202'],
      ['refund_agent', '7203'],
      ['invoice_agent', '7204'],
      ['product_faq_agent', '7205'],
    ]);
    expect(result.snapshot.byId.get('refund_agent')?.dependsOn).toEqual(['order_agent']);
    const orderId = result.snapshot.byId.get('order_agent')?.requiredKeys[0]?.extract;
    expect(orderId?.type === 'pattern' && orderId.matcher.test('订单号 2024051812345678')).toBe(true);
    expect(result.snapshot.byId.get('invoice_agent')?.requiredKeys.map((spec) => spec.widget)).toEqual(['order_selector', 'email_input']);
  });

  it('reports a missing file as one clear issue', async () => {
    const result = await loadRegistryFile('/nonexistent/dir/agents_config.yaml');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.issues[0]?.message).toBe('registry file not found: /nonexistent/dir/agents_config.yaml');
  });
});

describe('supervisor.word_lists', () => {
  it('reads extra rule words into the snapshot, empty lists by default', () => {
    const withLists = load(VALID.replace('version: 1\n', 'version: 1\nsupervisor:\n  word_lists:\n    sensitive: [内幕消息]\n    escalation: [找你们经理]\n'));
    if (!withLists.ok) throw new Error(withLists.issues.map(formatIssue).join('\n'));
    expect(withLists.snapshot.supervisor.wordLists).toEqual({ sensitive: ['内幕消息'], abusive: [], escalation: ['找你们经理'] });
  });

  it('rejects a list that is not a list of words, pointing at it', () => {
    const issues = issuesOf(VALID.replace('version: 1\n', 'version: 1\nsupervisor:\n  word_lists:\n    abusive: [ok, 3]\n'));
    expect(issues[0]).toMatchObject({ line: 4, pointer: '/supervisor/word_lists/abusive/1' });
    expect(issues[0]!.message).toMatch(/string/);
  });
});
