import { afterEach, describe, expect, it } from 'vitest';
import { createRegistryLoadWorker, type RegistryLoadWorker } from './load-worker.js';

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
    expect(await worker.check(GOOD, 'agents_config.yaml', {})).toEqual({ ok: true });
    const broken = await worker.check(GOOD.replace('version: 1', 'version: 7'), 'agents_config.yaml', {});
    expect(broken.ok).toBe(false);
  });

  it('refuses a load that passes its time limit, naming the limit, and serves the next load afresh', async () => {
    worker = createRegistryLoadWorker({ timeoutMs: 1 });
    const late = await worker.check(GOOD, 'agents_config.yaml', {});
    expect(late).toMatchObject({ ok: false, issues: [{ message: expect.stringMatching(/longer than 1 ms/) }] });
  });
});
