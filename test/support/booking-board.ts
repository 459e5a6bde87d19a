/**
 * The demo registry with its booking agents kept as `side_effects`, over fake
 * agents: a hotel that books, an SSE weather agent, and one fake for the rest.
 * Shared by the confirmation, expiry and topic-switch scenarios.
 */
import { jsonReply, sseReply, startFakeAgent, type FakeAgent } from './fake-agent.js';
import { sampleRegistry, startTestSwitchboard, type TestSwitchboard } from './switchboard-harness.js';

export interface BookingBoard {
  hotel: FakeAgent;
  weather: FakeAgent;
  others: FakeAgent;
  board: TestSwitchboard;
  close(): Promise<void>;
}

export async function startBookingBoard(options: { now: () => Date; supervisorExtra?: string; edit?: (yaml: string) => string }): Promise<BookingBoard> {
  const hotel = await startFakeAgent(
    jsonReply({ output: { hotels: [{ name: '北京饭店', price: 800, address: '东长安街33号' }], booking_id: 'BK-1' }, message: '已为您预订北京饭店，订单号 BK-1。' }),
  );
  const weather = await startFakeAgent(sseReply({ result: { status: 'completed', output: { city: '北京', forecast: [] }, message: '北京明天晴。' } }));
  const others = await startFakeAgent(jsonReply());
  let yaml = sampleRegistry('agents_config.yaml', { 7101: hotel.url, 7102: others.url, 7103: others.url, 7104: weather.url }, { keepSideEffects: true });
  if (options.supervisorExtra) yaml = yaml.replace('  escalate_after_failures: 2', `  escalate_after_failures: 2\n${options.supervisorExtra}`);
  const board = await startTestSwitchboard({ registryYaml: options.edit ? options.edit(yaml) : yaml, now: options.now });
  return {
    hotel,
    weather,
    others,
    board,
    async close() {
      await board.close();
      await Promise.all([hotel.close(), weather.close(), others.close()]);
    },
  };
}
