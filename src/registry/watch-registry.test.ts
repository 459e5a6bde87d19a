import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { UserError } from '../errors.js';
import { diffSnapshots } from './diff-snapshots.js';
import { loadRegistryText } from './load-registry.js';
import type { RegistryDiff, RegistrySnapshot } from './types.js';
import { createRegistry, type WatchedRegistry } from './watch-registry.js';

function agent(id: string, options: { description?: string; enabled?: boolean } = {}): string {
  return `  - id: ${id}
    name: ${id} name
    description: ${options.description ?? `${id} description`}
    enabled: ${options.enabled ?? true}
    endpoint: { url: "http://127.0.0.1:7101/${id}" }
`;
}

function registryText(...agents: string[]): string {
  return `version: 1\nagents:\n${agents.join('')}`;
}

interface Reload {
  next: RegistrySnapshot;
  previous: RegistrySnapshot;
  diff: RegistryDiff;
}

function nextReload(registry: WatchedRegistry, timeoutMs = 5000): Promise<Reload> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error('no reload within the time limit'));
    }, timeoutMs);
    const unsubscribe = registry.onReload((next, previous, diff) => {
      clearTimeout(timer);
      unsubscribe();
      resolve({ next, previous, diff });
    });
  });
}

async function waitFor(predicate: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not met within the time limit');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('createRegistry (hot reload on real files)', () => {
  let directory: string;
  let path: string;
  let registry: WatchedRegistry | undefined;
  let logLines: Record<string, unknown>[];

  const logger = () =>
    pino({ level: 'info' }, { write: (line: string) => void logLines.push(JSON.parse(line) as Record<string, unknown>) });

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'registry-watch-'));
    path = join(directory, 'agents_config.yaml');
    logLines = [];
    await writeFile(path, registryText(agent('hotel_agent'), agent('limo_agent')));
    registry = await createRegistry({ path, logger: logger(), env: {}, debounceMs: 30 });
  });

  afterEach(async () => {
    await registry?.close();
    await rm(directory, { recursive: true, force: true });
  });

  it('loads the file at start', () => {
    expect(registry?.current().agents.map((card) => card.id)).toEqual(['hotel_agent', 'limo_agent']);
    expect(registry?.lastError()).toBeNull();
  });

  it('adds an agent without restart and logs old → new version with the diff', async () => {
    const before = registry!.current();
    const reloaded = nextReload(registry!);
    await writeFile(path, registryText(agent('hotel_agent'), agent('limo_agent'), agent('weather_agent')));
    const { next, previous, diff } = await reloaded;
    expect(previous).toBe(before);
    expect(registry!.current()).toBe(next);
    expect(diff).toEqual({ added: ['weather_agent'], removed: [], modified: [], enabled: [], disabled: [] });
    expect(next.byId.get('weather_agent')?.endpoint.url).toBe('http://127.0.0.1:7101/weather_agent');
    const line = logLines.find((entry) => entry.from === before.version);
    expect(line).toMatchObject({ from: before.version, to: next.version, added: ['weather_agent'] });
    expect(String(line?.msg)).toContain(`${before.version} → ${next.version}`);
  });

  it('modifies, disables and deletes agents, and a held snapshot stays as it was', async () => {
    const held = registry!.current();

    let reloaded = nextReload(registry!);
    await writeFile(path, registryText(agent('hotel_agent', { description: 'changed' }), agent('limo_agent')));
    let { diff } = await reloaded;
    expect(diff.modified).toEqual(['hotel_agent']);
    expect(registry!.current().byId.get('hotel_agent')?.description).toBe('changed');

    reloaded = nextReload(registry!);
    await writeFile(path, registryText(agent('hotel_agent', { description: 'changed' }), agent('limo_agent', { enabled: false })));
    ({ diff } = await reloaded);
    expect(diff).toEqual({ added: [], removed: [], modified: [], enabled: [], disabled: ['limo_agent'] });
    expect(registry!.current().enabledAgents.map((card) => card.id)).toEqual(['hotel_agent']);

    reloaded = nextReload(registry!);
    await writeFile(path, registryText(agent('hotel_agent', { description: 'changed' })));
    ({ diff } = await reloaded);
    expect(diff.removed).toEqual(['limo_agent']);
    expect(registry!.current().byId.has('limo_agent')).toBe(false);

    // The snapshot taken before all this is untouched.
    expect(held.agents.map((card) => card.id)).toEqual(['hotel_agent', 'limo_agent']);
    expect(held.byId.get('hotel_agent')?.description).toBe('hotel_agent description');
    expect(held.enabledAgents).toHaveLength(2);
  });

  it('keeps the last good snapshot when an edit is broken, then recovers and clears lastError', async () => {
    const good = registry!.current();
    let reloads = 0;
    registry!.onReload(() => {
      reloads += 1;
    });
    await writeFile(path, registryText(agent('hotel_agent'), agent('Bad-Id')));
    await waitFor(() => registry!.lastError() !== null);
    const error = registry!.lastError()!;
    expect(error).toMatchObject({ file: path, line: 8, col: 9 });
    expect(error.message).toMatch(/"id" "Bad-Id" does not match/);
    expect(error.issues).toHaveLength(1);
    expect(registry!.current()).toBe(good);
    expect(reloads).toBe(0);
    expect(logLines.some((entry) => entry.keptVersion === good.version)).toBe(true);

    const reloaded = nextReload(registry!);
    await writeFile(path, registryText(agent('hotel_agent'), agent('good_agent')));
    const { next } = await reloaded;
    expect(next.byId.has('good_agent')).toBe(true);
    expect(registry!.lastError()).toBeNull();
  });

  it('reports every issue of a broken edit in lastError', async () => {
    await writeFile(path, `version: 1\nagents:\n${agent('a')}${agent('a')}  - id: b\n    name: b\n`);
    await waitFor(() => registry!.lastError() !== null);
    const error = registry!.lastError()!;
    expect(error.issues.map((issue) => issue.line)).toEqual([8, 13, 13]);
    expect(error.issues.map((issue) => issue.message)).toEqual([
      `duplicate agent id "a" (first defined at line 3)`,
      `missing required property "description"`,
      `missing required property "endpoint"`,
    ]);
    expect(error.message).toContain("(and 2 more)");
  });

  it('clears lastError when the file is put back to the live version', async () => {
    const text = registryText(agent('hotel_agent'), agent('limo_agent'));
    await writeFile(path, 'version: [');
    await waitFor(() => registry!.lastError() !== null);
    expect(registry!.lastError()?.message).toMatch(/YAML syntax error/);
    await writeFile(path, text);
    await waitFor(() => registry!.lastError() === null);
    expect(registry!.current().agents).toHaveLength(2);
  });

  it('follows an editor that saves by writing a temp file and renaming it over the original', async () => {
    const reloaded = nextReload(registry!);
    const temporary = join(directory, '.agents_config.yaml.swp');
    await writeFile(temporary, registryText(agent('hotel_agent'), agent('limo_agent'), agent('flight_agent')));
    await rename(temporary, path);
    const { diff } = await reloaded;
    expect(diff.added).toEqual(['flight_agent']);

    // And keeps following the new inode.
    const again = nextReload(registry!);
    await writeFile(temporary, registryText(agent('flight_agent')));
    await rename(temporary, path);
    expect((await again).diff.removed).toEqual(['hotel_agent', 'limo_agent']);
  });

  it('survives delete-then-recreate', async () => {
    const good = registry!.current();
    await unlink(path);
    await waitFor(() => registry!.lastError() !== null);
    expect(registry!.lastError()?.message).toContain('registry file not found');
    expect(registry!.current()).toBe(good);

    const reloaded = nextReload(registry!);
    await writeFile(path, registryText(agent('hotel_agent')));
    expect((await reloaded).diff.removed).toEqual(['limo_agent']);
    expect(registry!.lastError()).toBeNull();
  });

  it('ignores other files in the directory', async () => {
    let reloads = 0;
    registry!.onReload(() => {
      reloads += 1;
    });
    await writeFile(join(directory, 'other.yaml'), 'not: [valid');
    await registry!.reload();
    expect(reloads).toBe(0);
    expect(registry!.lastError()).toBeNull();
  });

  it('reload() applies the file now', async () => {
    await registry!.close();
    registry = await createRegistry({ path, logger: logger(), env: {}, watch: false });
    await writeFile(path, registryText(agent('only_agent')));
    await registry.reload();
    expect(registry.current().agents.map((card) => card.id)).toEqual(['only_agent']);
  });
});

describe('createRegistry: first load', () => {
  it('throws CONFIG_INVALID listing every issue when the first load fails', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'registry-first-'));
    const path = join(directory, 'agents_config.yaml');
    await writeFile(path, `version: 1\nagents:\n${agent('Bad')}${agent('x').replace('enabled: true', 'enabled: maybe')}`);
    try {
      const failure = await createRegistry({ path, logger: pino({ level: 'silent' }), env: {} }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(UserError);
      expect((failure as UserError).code).toBe('CONFIG_INVALID');
      expect((failure as UserError).message).toContain(`${path}:3:9  /agents/0/id`);
      expect((failure as UserError).message).toContain(`${path}:11:14  /agents/1/enabled`);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('throws CONFIG_INVALID for a missing file', async () => {
    await expect(createRegistry({ path: '/nonexistent/agents_config.yaml', logger: pino({ level: 'silent' }) })).rejects.toThrow(
      /registry file not found: \/nonexistent\/agents_config.yaml/,
    );
  });
});

describe('diffSnapshots', () => {
  const snapshot = (text: string): RegistrySnapshot => {
    const result = loadRegistryText(text, 'f.yaml', { env: {} });
    if (!result.ok) throw new Error('fixture must be valid');
    return result.snapshot;
  };

  it('reports an agent both modified and enabled when both changed', () => {
    const before = snapshot(registryText(agent('a', { enabled: false }), agent('b')));
    const after = snapshot(registryText(agent('a', { enabled: true, description: 'new' }), agent('c')));
    expect(diffSnapshots(before, after)).toEqual({ added: ['c'], removed: ['b'], modified: ['a'], enabled: ['a'], disabled: [] });
  });

  it('reports nothing for identical registries', () => {
    const text = registryText(agent('a'));
    expect(diffSnapshots(snapshot(text), snapshot(text))).toEqual({ added: [], removed: [], modified: [], enabled: [], disabled: [] });
  });
});
