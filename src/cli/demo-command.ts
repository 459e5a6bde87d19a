/**
 * `switchboard demo` (`npm start`): the travel demo sub-agents on
 * 127.0.0.1:7101-7104 (http-json and http-sse), the currency-exchange A2A agent
 * on 7105 (registered by its Agent Card), the supervisor on the root registry,
 * and the chat page. `--agent-ports` or the `DEMO_*_PORT` variables move the
 * agents; the registry reads the same variables, set here to the ports taken.
 * Offline: no model, no API key.
 */
import { parseArgs } from 'node:util';
import { DEMO_AGENT_PORTS, parseDemoAgentNames, startDemoAgents, type DemoAgentName } from '../../demo/agents.js';
import { demoPortEnvironment, readDemoPorts, type DemoPortName } from '../../demo/demo-ports.js';
import { startDemoA2aAgent } from '../../demo/exchange-agent.js';
import type { CliIo } from './cli-io.js';
import { startSwitchboard, waitForShutdown } from './serve-command.js';

const EXAMPLES = [
  '帮我订北京的酒店，明天早上7点到首都机场接机',
  '帮我订酒店',
  '帮我订北京的酒店，安排明天早上7点首都机场接机，再告诉我北京明天的天气',
  '100美元能换多少人民币',
];

/** The help text of this command (main adds the environment section). */
export const HELP = `Usage: switchboard demo [--port N] [--agent-ports PORTS] [--config FILE] [--without NAMES]

Starts the travel demo sub-agents on 127.0.0.1:7101-7104, the currency-exchange
A2A agent on 7105, the supervisor on the root registry and the chat page at /. Offline unless LLM_* is set. The banner
goes to stderr; stdout carries only JSON log lines.

  --agent-ports PORTS  where the demo agents listen: N = five consecutive ports from N
                   (hotel, limo, flight, weather, exchange; 0 = any free ports), or
                   hotel=N,weather=M,... (default: DEMO_HOTEL_PORT, DEMO_LIMO_PORT,
                   DEMO_FLIGHT_PORT, DEMO_WEATHER_PORT, DEMO_EXCHANGE_PORT, else 7101-7105).
                   The registry reads the same variables (\${DEMO_HOTEL_PORT:-7101}).

  --without NAMES  comma list of demo agents not to start here (hotel, limo,
                   flight, weather); run them on their own with
                   \`npx tsx demo/agents.ts --only NAMES\` to stop and restart them.
`;

export async function runCommand(args: string[], io: CliIo): Promise<number> {
  let values: { port?: string; config?: string; without?: string; 'agent-ports'?: string };
  let without: DemoAgentName[] = [];
  let agentPorts: Record<DemoPortName, number>;
  try {
    ({ values } = parseArgs({
      args,
      options: { port: { type: 'string', short: 'p' }, config: { type: 'string', short: 'c' }, without: { type: 'string' }, 'agent-ports': { type: 'string' } },
      strict: true,
    }));
    if (values.without !== undefined) without = parseDemoAgentNames(values.without);
    agentPorts = readDemoPorts(values['agent-ports'], io.env);
  } catch (error) {
    io.stderr(`switchboard demo: ${(error as Error).message}\n`);
    return 2;
  }
  const portText = values.port ?? io.env.PORT ?? '8080';
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    io.stderr(`switchboard demo: invalid port "${portText}": expected an integer 0-65535\n`);
    return 2;
  }
  let agents: Awaited<ReturnType<typeof startDemoAgents>>;
  let a2aAgent: Awaited<ReturnType<typeof startDemoA2aAgent>>;
  const latencyMs = Number(io.env.DEMO_AGENT_LATENCY_MS ?? 300) || 0;
  try {
    const only = (Object.keys(DEMO_AGENT_PORTS) as DemoAgentName[]).filter((name) => !without.includes(name));
    agents = await startDemoAgents({ latencyMs, only, ports: agentPorts });
  } catch (error) {
    io.stderr(`switchboard demo: could not start the demo sub-agents: ${(error as Error).message}\n`);
    return 1;
  }
  try {
    a2aAgent = await startDemoA2aAgent({ latencyMs, port: agentPorts.exchange });
  } catch (error) {
    await agents.close();
    io.stderr(`switchboard demo: could not start the demo A2A agent: ${(error as Error).message}\n`);
    return 1;
  }
  // The registry's `${DEMO_*_PORT:-…}` references resolve to the ports actually taken (0 = a free one).
  const taken = { ...agentPorts, exchange: Number(new URL(a2aAgent.url).port) };
  for (const [name, url] of Object.entries(agents.urls)) taken[name as DemoAgentName] = Number(new URL(url).port);
  const registryIo: CliIo = { ...io, env: { ...io.env, ...demoPortEnvironment(taken) } };
  let started;
  try {
    started = await startSwitchboard({ config: values.config ?? io.env.SWITCHBOARD_CONFIG ?? 'agents_config.yaml', port, host: io.env.HOST ?? '127.0.0.1', drainGraceMs: 2000 }, registryIo);
  } catch (error) {
    await agents.close();
    await a2aAgent.close();
    io.stderr(`switchboard demo: ${(error as Error).message}\n`);
    return 1;
  }
  const url = started.server.url.replace('0.0.0.0', '127.0.0.1');
  io.stderr(
    [
      '',
      `Switchboard demo is running: open ${url}/ in a browser.`,
      `Demo sub-agents: ${Object.values(agents.urls).join('  ')}`,
      `Demo A2A agent (registered by its Agent Card): ${a2aAgent.cardUrl}`,
      `Switchboard is an A2A agent too: ${url}/.well-known/agent-card.json (JSON-RPC at ${url}/a2a); AG-UI clients: POST ${url}/v1/agui`,
      '',
      'Try these queries (chat page, or curl):',
      ...EXAMPLES.map((query) => `  - ${query}`),
      '',
      `  curl -N ${url}/v1/chat -H 'content-type: application/json' -d '{"query":"${EXAMPLES[0]}","user_id":"demo"}'`,
      '',
      'Edit agents_config.yaml while it runs: changes are picked up without a restart. Ctrl+C to stop.',
      '',
    ].join('\n'),
  );
  await waitForShutdown();
  await started.close();
  await agents.close();
  await a2aAgent.close();
  return 0;
}
