/**
 * The demo moves off its ports: `--agent-ports` and the `DEMO_*_PORT`
 * variables choose where the demo agents listen, and the root registry
 * (`${DEMO_HOTEL_PORT:-7101}`, …) reaches them there.
 */
import { createServer, type Server } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_DEMO_PORTS, demoPortEnvironment, readDemoPorts } from '../../demo/demo-ports.js';
import { startDemo, type DemoProcess } from './demo-process.js';

describe('readDemoPorts', () => {
  it('reads the flag first, then each DEMO_*_PORT, then the defaults', () => {
    expect(readDemoPorts(undefined, {})).toEqual(DEFAULT_DEMO_PORTS);
    expect(readDemoPorts(undefined, { DEMO_WEATHER_PORT: '9004' }).weather).toBe(9004);
    expect(readDemoPorts('9100', { DEMO_WEATHER_PORT: '9004' })).toEqual({ hotel: 9100, limo: 9101, flight: 9102, weather: 9103, exchange: 9104 });
    expect(readDemoPorts('0', {})).toEqual({ hotel: 0, limo: 0, flight: 0, weather: 0, exchange: 0 });
    expect(readDemoPorts('hotel=9200,exchange=9205', { DEMO_LIMO_PORT: '9300' })).toEqual({ ...DEFAULT_DEMO_PORTS, hotel: 9200, limo: 9300, exchange: 9205 });
    expect(demoPortEnvironment({ hotel: 1, exchange: 5 })).toEqual({ DEMO_HOTEL_PORT: '1', DEMO_EXCHANGE_PORT: '5' });
  });

  it('names a bad value', () => {
    expect(() => readDemoPorts('hotel=x', {})).toThrow('invalid port "x" for --agent-ports hotel');
    expect(() => readDemoPorts('taxi=1', {})).toThrow('unknown demo agent "taxi"');
    expect(() => readDemoPorts(undefined, { DEMO_HOTEL_PORT: '70000' })).toThrow('invalid port "70000" for DEMO_HOTEL_PORT');
    expect(() => readDemoPorts('65533', {})).toThrow('five consecutive ports do not fit');
  });
});

describe('npm start on a machine where a port is taken', () => {
  let holder: Server | undefined;
  let demo: DemoProcess | undefined;
  afterAll(async () => {
    await demo?.stop();
    await new Promise((resolve) => (holder ? holder.close(resolve) : resolve(undefined)));
  });

  it('reads DEMO_*_PORT, and with --agent-ports 0 runs on free ports the registry follows', async () => {
    holder = createServer();
    await new Promise<void>((resolve) => holder!.listen(0, '127.0.0.1', () => resolve()));
    const taken = (holder.address() as { port: number }).port;
    await expect(startDemo(['--port', '0'], { DEMO_WEATHER_PORT: String(taken) })).rejects.toThrow(`demo weather agent cannot listen on 127.0.0.1:${taken}: EADDRINUSE`);

    demo = await startDemo(['--port', '0', '--agent-ports', '0'], { DEMO_WEATHER_PORT: String(taken) });
    const agentUrls = /Demo sub-agents: (.*)/.exec(demo.output())![1]!.trim().split(/\s+/);
    expect(agentUrls).toHaveLength(4);
    for (const url of agentUrls) expect(Number(new URL(url).port)).not.toBe(taken);
    const response = await fetch(`${demo.url}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: '北京明天天气怎么样', user_id: 'u1', session_id: 'ports-1' }),
    });
    const turn = (await response.json()) as { events: { metadata: { stage: string }; agent_id: string }[] };
    expect(turn.events.filter((event) => event.metadata.stage === 'agent_done').map((event) => event.agent_id)).toEqual(['weather_agent']);
    // The A2A agent, registered by its Agent Card, is reached on its moved port too.
    const exchange = await fetch(`${demo.url}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: '100美元能换多少人民币', user_id: 'u1', session_id: 'ports-2' }),
    });
    const exchangeTurn = (await exchange.json()) as { events: { metadata: { stage: string }; agent_id: string }[] };
    expect(exchangeTurn.events.filter((event) => event.metadata.stage === 'agent_done').map((event) => event.agent_id)).toEqual(['exchange_agent']);
  }, 90_000);
});
