import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../logger.js';
import { createRegistryLoadWorker, loadWorkerStats, type RegistryLoadWorker } from './load-worker.js';
import { createRegistry } from './watch-registry.js';
import { yamlParseCount } from './yaml-source.js';

const GOOD = `version: 1
agents:
  - id: echo_agent
    name: 回声
    description: 回声 echo
    keywords: [echo]
    endpoint: { url: "http://127.0.0.1:9/invoke" }
`;

describe('trial loads in a worker', () => {
  let worker: RegistryLoadWorker | undefined;
  afterEach(async () => {
    await worker?.close();
    worker = undefined;
  });

  it('passes a good registry and reports the issues of a broken one, off the event loop', async () => {
    worker = createRegistryLoadWorker({ timeoutMs: 60_000 });
    const good = await worker.check(GOOD, 'agents_config.yaml', {});
    // The parsed data comes back (a structured clone), for the main thread to build from without parsing again.
    expect(good).toMatchObject({ ok: true, data: { version: 1, agents: [{ id: 'echo_agent' }] } });
    const broken = await worker.check(GOOD.replace('version: 1', 'version: 7'), 'agents_config.yaml', {});
    expect(broken.ok).toBe(false);
  });

  it('refuses a load that passes its time limit, naming the limit, and serves the next load afresh', async () => {
    worker = createRegistryLoadWorker({ timeoutMs: 1 });
    const late = await worker.check(GOOD, 'agents_config.yaml', {});
    expect(late).toMatchObject({ ok: false, issues: [{ message: expect.stringMatching(/longer than 1 ms/) }] });
  });

  it('is one thread for every registry of the process, and none once idle', async () => {
    const startsBefore = loadWorkerStats().starts;
    worker = createRegistryLoadWorker({ timeoutMs: 60_000, idleMs: 300 });
    const second = createRegistryLoadWorker({ timeoutMs: 60_000, idleMs: 300 });
    const [one, two] = await Promise.all([worker.check(GOOD, 'a.yaml', {}), second.check(GOOD, 'b.yaml', {})]);
    expect([one, two].map((load) => (load.ok ? "ok" : load.issues[0]?.message))).toEqual(["ok", "ok"]);
    expect(loadWorkerStats().starts - startsBefore).toBe(1);
    expect(loadWorkerStats().running).toBe(1);
    await expect.poll(() => loadWorkerStats().running, { timeout: 3000 }).toBe(0);
    // The next load starts one again on demand.
    expect((await second.check(GOOD, 'b.yaml', {})).ok).toBe(true);
    await second.close();
  });
});

describe('a hot reload', () => {
  it('parses the registry text once in the whole process: in the worker, whose data the main thread builds from', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-parse-once-'));
    const path = join(dir, 'agents_config.yaml');
    writeFileSync(path, GOOD);
    const registry = await createRegistry({ path, logger: silentLogger, env: {}, watch: false, reloadTimeoutMs: 60_000 });
    try {
      const before = registry.current().version;
      writeFileSync(path, GOOD.replace('keywords: [echo]', 'keywords: [echo, again]'));
      const mainBefore = yamlParseCount();
      const workerBefore = loadWorkerStats().parses;
      await registry.reload();
      expect(registry.current().version).not.toBe(before);
      expect(registry.current().byId.get('echo_agent')?.keywords).toEqual(['echo', 'again']);
      expect({ main: yamlParseCount() - mainBefore, worker: loadWorkerStats().parses - workerBefore }).toEqual({ main: 0, worker: 1 });
    } finally {
      await registry.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
