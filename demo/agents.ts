/**
 * The demo travel sub-agents (hotel, limo, flight, weather) as real HTTP
 * servers on the ports the root `agents_config.yaml` points at, so the whole
 * platform can be tried with no external service and no API key.
 *
 * Standalone: `npx tsx demo/agents.ts [--only weather,hotel]` starts them (or
 * the named ones) and prints their URLs; with `switchboard demo --without
 * weather` beside it, one agent can be stopped and started on its own (to watch
 * its circuit breaker open and close).
 */
import { realpathSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { pathToFileURL } from 'node:url';
import { createAgentServer } from './agent-server.js';
import { DEFAULT_DEMO_PORTS, readDemoPorts } from './demo-ports.js';
import { TRAVEL_AGENTS } from './travel-agents.js';

/** Short names of the demo agents (`hotel` serves `hotel_agent`, and so on). */
export type DemoAgentName = keyof typeof TRAVEL_AGENTS;

/** The default ports, matching the root `agents_config.yaml` (each moves with its `DEMO_*_PORT` variable). */
export const DEMO_AGENT_PORTS: Readonly<Record<DemoAgentName, number>> = {
  hotel: DEFAULT_DEMO_PORTS.hotel,
  limo: DEFAULT_DEMO_PORTS.limo,
  flight: DEFAULT_DEMO_PORTS.flight,
  weather: DEFAULT_DEMO_PORTS.weather,
};

/** Options of `startDemoAgents`. */
export interface DemoAgentsOptions {
  host?: string;
  /** Ports by agent; 0 picks a free one. Unlisted agents use `DEMO_AGENT_PORTS`. */
  ports?: Partial<Record<DemoAgentName, number>>;
  /** Added to every reply; the weather agent spreads it between its events (benchmarks, demos). */
  latencyMs?: number;
  /** When set, the hotel agent requires `authorization: Bearer <token>`. */
  hotelToken?: string;
  /** Start only these agents (default: all four). */
  only?: readonly DemoAgentName[];
}

/** Reads a comma list of demo agent names (`weather,hotel`); throws naming an unknown one. */
export function parseDemoAgentNames(text: string): DemoAgentName[] {
  const known = Object.keys(TRAVEL_AGENTS) as DemoAgentName[];
  const names = text.split(',').map((name) => name.trim()).filter((name) => name.length > 0);
  for (const name of names) {
    if (!known.includes(name as DemoAgentName)) throw new Error(`unknown demo agent "${name}" (known: ${known.join(', ')})`);
  }
  return names as DemoAgentName[];
}

/** Running demo agents. */
export interface DemoAgents {
  /** `http://host:port/invoke` by agent name. */
  readonly urls: Record<DemoAgentName, string>;
  /** Agent ids (`hotel_agent`, …) by agent name. */
  readonly agentIds: Record<DemoAgentName, string>;
  close(): Promise<void>;
}

/** Starts the four demo agents; rejects, naming the agent and port, if one cannot listen. */
export async function startDemoAgents(options: DemoAgentsOptions = {}): Promise<DemoAgents> {
  const host = options.host ?? '127.0.0.1';
  const latencyMs = Math.max(0, options.latencyMs ?? 0);
  const names = (Object.keys(TRAVEL_AGENTS) as DemoAgentName[]).filter((name) => !options.only || options.only.includes(name));
  const started: Server[] = [];
  const urls = {} as Record<DemoAgentName, string>;
  const agentIds = {} as Record<DemoAgentName, string>;
  const closeAll = () => Promise.all(started.map(closeServer)).then(() => undefined);

  try {
    for (const name of names) {
      const agent = TRAVEL_AGENTS[name];
      const server = createAgentServer(agent, {
        latencyMs,
        bearerToken: name === 'hotel' ? options.hotelToken : undefined,
      });
      const port = options.ports?.[name] ?? DEMO_AGENT_PORTS[name];
      await listen(server, host, port).catch((error: NodeJS.ErrnoException) => {
        throw new Error(`demo ${name} agent cannot listen on ${host}:${port}: ${error.code ?? error.message}`);
      });
      started.push(server);
      const address = server.address() as AddressInfo;
      urls[name] = `http://${formatHost(host)}:${address.port}/invoke`;
      agentIds[name] = agent.id;
    }
  } catch (error) {
    await closeAll();
    throw error;
  }

  let closing: Promise<void> | undefined;
  return {
    urls,
    agentIds,
    close: () => (closing ??= closeAll()),
  };
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

function isMainModule(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(entry)).href;
  } catch {
    return false;
  }
}

if (isMainModule()) {
  const latencyMs = Number(process.env.DEMO_AGENT_LATENCY_MS ?? 0) || 0;
  const onlyAt = process.argv.indexOf('--only');
  Promise.resolve()
    .then(() => (onlyAt > 0 ? parseDemoAgentNames(process.argv[onlyAt + 1] ?? '') : undefined))
    .then((only) => startDemoAgents({ host: process.env.DEMO_AGENTS_HOST, latencyMs, ports: readDemoPorts(undefined, process.env), ...(only ? { only } : {}) }))
    .then(
    (agents) => {
      for (const [name, url] of Object.entries(agents.urls)) {
        console.log(`${agents.agentIds[name as DemoAgentName].padEnd(14)} ${url}`);
      }
      console.log('Demo agents running; press Ctrl+C to stop.');
      const stop = () => void agents.close().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    },
    (error: Error) => {
      console.error(error.message);
      process.exit(1);
    },
  );
}
