/**
 * Registry mistakes that used to hurt the server: catastrophic regexes,
 * YAML alias bombs, oversized files. Each must be refused quickly and leave
 * the last good registry (and a visible lastError) in place.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../logger.js';
import { extractOne } from '../text/key-extractor.js';
import { formatIssue, loadRegistryFile, loadRegistryText } from './load-registry.js';
import { createRegistry, type WatchedRegistry } from './watch-registry.js';
import { MAX_REGISTRY_BYTES } from './yaml-source.js';

const AGENT = `version: 1
agents:
  - id: order_agent
    name: Orders
    description: order lookup
    endpoint: { url: "http://127.0.0.1:7101/invoke" }
`;

function withPattern(pattern: string): string {
  return `${AGENT}    required_semantic_keys:
      - { key: order_id, description: order, extract: { pattern: '${pattern}' } }
`;
}

/** A "billion laughs" file: `levels` anchors, each listing the previous one `width` times. */
function aliasBomb(levels: number, width: number): string {
  const lines = [AGENT.trimEnd(), '    input_schema:', '      type: object', '      default:'];
  lines.push(`        x0: &a0 [${Array.from({ length: width }, () => 'lol').join(', ')}]`);
  for (let level = 1; level < levels; level += 1) {
    lines.push(`        x${level}: &a${level} [${Array.from({ length: width }, () => `*a${level - 1}`).join(', ')}]`);
  }
  return `${lines.join('\n')}\n`;
}

function elapsed<T>(run: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = run();
  return { value, ms: performance.now() - started };
}

describe('extract patterns run on a linear-time engine', () => {
  it('loads (a+)+$ and matches a hostile query at once', () => {
    const result = loadRegistryText(withPattern('(a+)+$'), 'agents_config.yaml', { env: {} });
    if (!result.ok) throw new Error(result.issues.map(formatIssue).join('\n'));
    const spec = result.snapshot.agents[0]!.requiredKeys[0]!.extract;
    const { value, ms } = elapsed(() => extractOne(`${'a'.repeat(28)}!`, spec, new Date()));
    expect(value).toBeNull();
    expect(ms).toBeLessThan(200);
    expect(elapsed(() => extractOne(`${'a'.repeat(20_000)}!`, spec, new Date())).ms).toBeLessThan(2000);
  });

  it('rejects lookaround and backreferences at load, pointing at the pattern', () => {
    for (const pattern of ['(?<!\\d)\\d{6}', '(a)\\1']) {
      const result = loadRegistryText(withPattern(pattern), 'agents_config.yaml', { env: {} });
      expect(result.ok).toBe(false);
      const issue = !result.ok ? result.issues[0] : undefined;
      expect(issue?.pointer).toBe('/agents/0/required_semantic_keys/0/extract/pattern');
      expect(issue?.message).toMatch(/linear-time engine does not support/);
    }
  });
});

describe('YAML aliases and file size are capped', () => {
  it('rejects an alias bomb quickly with one clear issue', () => {
    const text = aliasBomb(9, 9);
    expect(text.length).toBeLessThan(4096);
    const { value: result, ms } = elapsed(() => loadRegistryText(text, 'agents_config.yaml', { env: {} }));
    expect(ms).toBeLessThan(2000);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.issues.map((issue) => issue.message)).toEqual([expect.stringMatching(/aliases expand the file to \d+ nodes/)]);
  });

  it('still accepts ordinary anchors and aliases', () => {
    const text = `${AGENT}    examples: &examples [find my order, where is my parcel]
  - id: parcel_agent
    name: Parcels
    description: parcel tracking
    examples: *examples
    endpoint: { url: "http://127.0.0.1:7102/invoke" }
`;
    const result = loadRegistryText(text, 'agents_config.yaml', { env: {} });
    expect(result.ok && result.snapshot.agents[1]?.examples).toEqual(['find my order', 'where is my parcel']);
  });

  it('rejects an alias that refers to its own ancestor', () => {
    const result = loadRegistryText(`${AGENT}    input_schema: &loop { type: object, default: { self: *loop } }\n`, 'agents_config.yaml', { env: {} });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.issues[0]?.message).toMatch(/alias|recursive/i);
  });

  it('rejects a file over the size limit before parsing it', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'registry-size-'));
    try {
      const path = join(directory, 'agents_config.yaml');
      await writeFile(path, `${AGENT}# ${'x'.repeat(MAX_REGISTRY_BYTES)}\n`);
      const result = await loadRegistryFile(path, { env: {} });
      expect(!result.ok && result.issues[0]?.message).toMatch(/registry file is too large: \d+ bytes/);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});

describe('a hostile hot reload', () => {
  let directory: string | undefined;
  let registry: WatchedRegistry | undefined;
  afterEach(async () => {
    await registry?.close();
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  it('rejects an alias bomb within bounds, keeps the live registry and reports lastError', async () => {
    directory = await mkdtemp(join(tmpdir(), 'registry-bomb-'));
    const path = join(directory, 'agents_config.yaml');
    await writeFile(path, AGENT);
    registry = await createRegistry({ path, logger: silentLogger, env: {}, watch: false });
    const version = registry.current().version;
    await writeFile(path, aliasBomb(10, 9));
    const started = performance.now();
    await registry.reload();
    expect(performance.now() - started).toBeLessThan(2000);
    expect(registry.current().version).toBe(version);
    expect(registry.lastError()?.message).toMatch(/aliases expand the file/);
  });

  it('reports an oversized edit in lastError', async () => {
    directory = await mkdtemp(join(tmpdir(), 'registry-big-'));
    const path = join(directory, 'agents_config.yaml');
    await writeFile(path, AGENT);
    registry = await createRegistry({ path, logger: silentLogger, env: {}, watch: false });
    await writeFile(path, `${AGENT}# ${'x'.repeat(MAX_REGISTRY_BYTES)}\n`);
    await registry.reload();
    expect(registry.lastError()?.message).toMatch(/too large/);
  });
});

describe('endpoint urls to private addresses', () => {
  const withUrl = (url: string, supervisor = '') =>
    `version: 1\n${supervisor}agents:\n  - id: a1\n    name: A\n    description: d\n    endpoint: { url: "${url}" }\n`;

  it.each(['http://169.254.169.254/latest/meta-data', 'http://[fd00::1]/invoke', 'http://[fe80::1]/invoke', 'http://[::ffff:169.254.169.254]/', 'http://metadata.google.internal/x', 'http://2852039166/',
    // IPv6 forms that carry a metadata IPv4 address
    'http://[::169.254.169.254]/', 'http://[::a9fe:a9fe]/', 'http://[64:ff9b::a9fe:a9fe]/', 'http://[64:ff9b::169.254.169.254]/',
    'http://[64:ff9b:1::a9fe:a9fe]/', 'http://[::ffff:0:a9fe:a9fe]/', 'http://[2002:a9fe:a9fe::1]/', 'http://[2001:0:a9fe:a9fe::1]/',
    'http://[2001:0:4136:e378:8000:63bf:5601:5601]/', 'http://[0:0:0:0:0:ffff:6464:64c8]/'])(
    'refuses %s at load, pointing at the url',
    (url) => {
      const result = loadRegistryText(withUrl(url), 'agents_config.yaml', { env: {} });
      expect(result.ok).toBe(false);
      const issue = !result.ok ? result.issues[0] : undefined;
      expect(issue?.pointer).toBe('/agents/0/endpoint/url');
      expect(issue?.message).toMatch(/allow_private_endpoints/);
    },
  );

  it('accepts loopback and ordinary private networks, and private addresses when allowed', () => {
    for (const url of ['http://127.0.0.1:7101/invoke', 'http://10.1.2.3/invoke', 'http://[::1]:80/x', 'http://[64:ff9b::a00:1]/x', 'http://[2002:a00:1::1]/x', 'http://[2001:db8::1]/x']) {
      expect(loadRegistryText(withUrl(url), 'agents_config.yaml', { env: {} }).ok).toBe(true);
    }
    const allowed = loadRegistryText(withUrl('http://169.254.169.254/x', 'supervisor:\n  allow_private_endpoints: true\n'), 'agents_config.yaml', { env: {} });
    expect(allowed.ok).toBe(true);
  });

  it('refuses a url that reaches a metadata address only through ${VAR}, without printing the value', () => {
    const result = loadRegistryText(withUrl('${AGENT_URL}'), 'agents_config.yaml', { env: { AGENT_URL: 'http://169.254.169.254/x' } });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.issues[0]?.message).not.toContain('169.254');
  });
});

describe('guard settings in the registry', () => {
  it('reads delegation depth, budgets, rate limit and pii patterns', () => {
    const text = `version: 1
supervisor:
  max_delegation_depth: 2
  budgets: { max_subtasks: 3, max_turn_ms: 5000 }
  rate_limit: { per_user_per_minute: 10, burst: 2 }
  pii_patterns: [{ name: member_no, pattern: "M[0-9]{8}" }]
${AGENT.slice('version: 1\n'.length)}`;
    const result = loadRegistryText(text, 'agents_config.yaml', { env: {} });
    if (!result.ok) throw new Error(result.issues.map(formatIssue).join('\n'));
    const supervisor = result.snapshot.supervisor;
    expect(supervisor.maxDelegationDepth).toBe(2);
    expect(supervisor.budgets).toEqual({ maxSubtasks: 3, maxLlmTokens: 20000, maxTurnMs: 5000 });
    expect(supervisor.rateLimit).toEqual({ perUserPerMinute: 10, burst: 2 });
    expect(supervisor.piiPatterns.map((entry) => entry.name)).toEqual(['member_no']);
    expect(supervisor.piiPatterns[0]?.pattern.test('会员 M12345678')).toBe(true);
  });

  it('rejects a pii pattern the linear-time engine cannot run, or one matching the empty string', () => {
    for (const pattern of ['(?<=x)M\\\\d+', 'a*']) {
      const text = `version: 1\nsupervisor:\n  pii_patterns: [{ name: bad, pattern: "${pattern}" }]\n${AGENT.slice('version: 1\n'.length)}`;
      const result = loadRegistryText(text, 'agents_config.yaml', { env: {} });
      expect(!result.ok && result.issues[0]?.pointer).toBe('/supervisor/pii_patterns/0/pattern');
    }
  });
});
