/**
 * The demo travel agents on ephemeral ports plus a Switchboard on the root
 * `agents_config.yaml` pointed at them: the setup of tests that exercise the
 * shipped registry end to end. `replace` swaps an agent's URL (e.g. for a
 * failing fake).
 */
import { startDemoAgents, type DemoAgentName, type DemoAgents } from '../../demo/agents.js';
import { sampleRegistry, startTestSwitchboard, type TestSwitchboard } from './switchboard-harness.js';

/** The demo agents and the Switchboard routing to them. */
export interface DemoSwitchboard {
  demo: DemoAgents;
  board: TestSwitchboard;
  close(): Promise<void>;
}

const DEFAULT_PORTS: Record<DemoAgentName, number> = { hotel: 7101, limo: 7102, flight: 7103, weather: 7104 };

/** Starts both; `options` go to `startTestSwitchboard` (registry aside); `keepSideEffects` keeps bookings behind the confirmation step. */
export async function startDemoSwitchboard(
  options: Omit<Parameters<typeof startTestSwitchboard>[0], 'registryYaml'> & { replace?: Partial<Record<DemoAgentName, string>>; keepSideEffects?: boolean } = {},
): Promise<DemoSwitchboard> {
  const { replace, keepSideEffects, ...boardOptions } = options;
  const demo = await startDemoAgents({ ports: { hotel: 0, limo: 0, flight: 0, weather: 0 }, hotelToken: 'demo-token' });
  const urls: Record<number, string> = {};
  for (const [name, port] of Object.entries(DEFAULT_PORTS) as [DemoAgentName, number][]) urls[port] = replace?.[name] ?? demo.urls[name];
  const board = await startTestSwitchboard({ ...boardOptions, registryYaml: sampleRegistry('agents_config.yaml', urls, { keepSideEffects }) }).catch(async (error: unknown) => {
    await demo.close();
    throw error;
  });
  return {
    demo,
    board,
    async close() {
      await board.close();
      await demo.close();
    },
  };
}
