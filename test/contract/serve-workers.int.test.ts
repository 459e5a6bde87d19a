/**
 * `switchboard serve --workers N` through the CLI: on PostgreSQL two worker
 * processes share the port and both serve turns, a session's turns stay whole
 * whichever worker takes them, and SIGTERM stops them all cleanly; on SQLite
 * more than one worker is refused with a message saying why.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { jsonReply, startFakeAgent } from '../support/fake-agent.js';
import { sampleRegistry } from '../support/switchboard-harness.js';
import { createDatabaseFactory, postgresAvailable } from '../support/services.js';
import { childEnv, REPO_ROOT, runCommand, spawnServer, turn } from './harness.js';

const hasPostgres = await postgresAvailable();
const databases = createDatabaseFactory('workers');
afterAll(() => databases.dropAll());

describe('serve --workers', () => {
  it('refuses several workers on SQLite, naming what they would not share', async () => {
    const result = await runCommand(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--config', `${REPO_ROOT}/agents_config.yaml`, '--port', '0', '--workers', '2'],
      childEnv({ DATABASE_URL: 'sqlite::memory:' }),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--workers 2 needs DATABASE_URL=postgres://');
    expect(result.stderr).toContain('cancel and resume signals');
  });

  it('ends with exit 1 and the reason when the workers cannot start, instead of hanging on their channels', { timeout: 60_000 }, async () => {
    // Nothing listens on port 1: each worker's storage fails to open; the primary must not wait forever.
    const result = await runCommand(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--config', `${REPO_ROOT}/agents_config.yaml`, '--port', '0', '--workers', '2'],
      childEnv({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere' }),
      40_000,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('DATABASE_URL postgres://***@127.0.0.1:1/nowhere');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it.skipIf(!hasPostgres)('runs two workers on one port over PostgreSQL: both serve turns, sessions stay whole, SIGTERM stops all', { timeout: 120_000 }, async () => {
    const hotel = await startFakeAgent(jsonReply({ message: '已为您预订北京饭店。', output: { hotels: [{ name: '北京饭店', price: 880, address: '东长安街' }], booking_id: 'HB-1' } }));
    const server = await spawnServer({
      registryYaml: sampleRegistry('agents_config.yaml', { 7101: hotel.url }),
      env: { DATABASE_URL: await databases.create(), LOG_LEVEL: 'info' },
      args: ['--workers', '2'],
      startTimeoutMs: 60_000,
    });
    try {
      expect(server.output()).toContain('2 workers');
      // Eight sessions, three turns each, all at once: the kernel spreads the connections over both workers.
      await Promise.all(
        Array.from({ length: 8 }, async (_, index) => {
          for (let round = 0; round < 3; round++) {
            const events = await turn(server.url, { query: '帮我订北京明天的酒店', user_id: `w${index}`, session_id: `workers-${index}` }, ['hotel_agent']);
            expect(events.at(-1)?.metadata.state?.outcome).toBe('completed');
          }
        }),
      );
      for (let index = 0; index < 8; index++) {
        const response = await fetch(`${server.url}/v1/sessions/workers-${index}/messages?user_id=w${index}`);
        expect(response.status).toBe(200);
        const body = (await response.json()) as { messages: { role: string }[] };
        expect(body.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
      }
      const finished = server
        .output()
        .split('\n')
        .filter((line) => line.includes('"turn finished"'))
        .map((line) => (JSON.parse(line) as { pid: number }).pid);
      expect(finished.length).toBe(24);
      expect(new Set(finished).size).toBe(2);
    } finally {
      expect(await server.stop()).toBe(0);
      await hotel.close();
    }
  });
});
