/**
 * What the four demo travel agents answer. Each handler is a plain function of
 * the request body (docs/api.md#sub-agent-wire-protocol) — no HTTP here — and replies in the shapes the
 * root `agents_config.yaml` declares as `output_schema`. A required input that
 * is absent or malformed gets `status: input_required` with `missing_keys`.
 */
import type { AgentReply, AgentRequestBody } from '../src/agents/types.js';
import {
  addDays,
  airlineFor,
  canonicalCity,
  climateOf,
  conditionFor,
  driverFor,
  hashCode,
  hashNumber,
  hotelsOf,
  resolveDate,
} from './travel-data.js';

/** Lets a streaming handler send `progress` events. */
export interface DemoAgentContext {
  progress(content: string): Promise<void>;
}

/** One demo agent: its registry id, whether it streams (http-sse), and its logic. */
export interface DemoAgentDefinition {
  readonly id: string;
  readonly streaming: boolean;
  handle(request: AgentRequestBody, context: DemoAgentContext): Promise<AgentReply>;
}

interface InputRule {
  key: string;
  description: string;
  /** Extra check for a present value; the hint names the expected form. */
  valid?: (value: unknown) => boolean;
  hint?: string;
}

/** `input_required` naming every required input that is absent or malformed, else undefined. */
function checkInputs(inputs: Record<string, unknown>, rules: readonly InputRule[]): AgentReply | undefined {
  const problems = rules.filter((rule) => {
    const value = inputs[rule.key];
    if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) return true;
    return rule.valid ? !rule.valid(value) : typeof value !== 'string';
  });
  if (problems.length === 0) return undefined;
  const wording = problems.map((rule) => (rule.hint && inputs[rule.key] !== undefined ? `${rule.description}（${rule.hint}）` : rule.description));
  return {
    status: 'input_required',
    missing_keys: problems.map((rule) => rule.key),
    message: `还需要您提供：${wording.join('、')}`,
  };
}

const DATE_RULE = { valid: (value: unknown) => resolveDate(value) !== undefined, hint: '格式 YYYY-MM-DD' };

/** Hotel search and booking: three hotels of the city, the first one booked. */
export const hotelAgent: DemoAgentDefinition = {
  id: 'hotel_agent',
  streaming: false,
  async handle({ task_id: taskId, inputs }) {
    const missing = checkInputs(inputs, [
      { key: 'city', description: '入住城市' },
      { key: 'check_in_date', description: '入住日期', ...DATE_RULE },
    ]);
    if (missing) return missing;
    const nights = inputs.nights ?? 1;
    if (!Number.isInteger(nights) || (nights as number) < 1) {
      return { status: 'failed', message: `入住晚数必须是正整数，收到的是 ${JSON.stringify(nights)}` };
    }
    const city = String(inputs.city).trim();
    const checkInDate = resolveDate(inputs.check_in_date)!;
    const hotels = hotelsOf(city).map(([name, address], index) => ({
      name,
      address,
      price: 280 + (hashNumber(`${canonicalCity(city)}|${checkInDate}|${index}`) % 90) * 10,
    }));
    const bookingId = hashCode('HTL', taskId);
    const booked = hotels[0]!;
    return {
      status: 'completed',
      output: { city, check_in_date: checkInDate, nights, hotels, booking_id: bookingId, booked_hotel: booked.name },
      message:
        `已为您找到${city}的 ${hotels.length} 家酒店（${checkInDate} 入住，共 ${nights} 晚），` +
        `并预订了${booked.name}（¥${booked.price}/晚），订单号 ${bookingId}。`,
    };
  },
};

/** Airport transfer: drives to the hotel booked upstream when there is one. */
export const limoAgent: DemoAgentDefinition = {
  id: 'limo_agent',
  streaming: false,
  async handle({ task_id: taskId, inputs, upstream }) {
    const missing = checkInputs(inputs, [
      { key: 'airport', description: '机场' },
      { key: 'pickup_time', description: '接机时间' },
    ]);
    if (missing) return missing;
    const airport = String(inputs.airport).trim();
    const pickupTime = String(inputs.pickup_time).trim();
    const date = resolveDate(inputs.date);
    const destination = hotelFromUpstream(upstream) ?? (typeof inputs.destination === 'string' ? inputs.destination : undefined);
    const bookingId = hashCode('LMO', taskId);
    const driver = driverFor(airport, taskId);
    const when = date ? `${date} ${pickupTime}` : pickupTime;
    return {
      status: 'completed',
      output: {
        booking_id: bookingId,
        driver,
        pickup_time: pickupTime,
        airport,
        ...(date ? { date } : {}),
        ...(destination ? { destination } : {}),
      },
      message: `已安排${when}在${airport}接机，司机${driver}${destination ? `，将送您前往${destination}` : ''}。订单号 ${bookingId}。`,
    };
  },
};

/** `name（address）` of the hotel an upstream hotel task booked, if any. */
function hotelFromUpstream(upstream: AgentRequestBody['upstream'] | undefined): string | undefined {
  const entries = Object.values(upstream ?? {});
  const ordered = [...entries.filter((entry) => entry?.agent === 'hotel_agent'), ...entries];
  for (const entry of ordered) {
    const output = entry?.output as { hotels?: unknown; booked_hotel?: unknown } | undefined;
    if (!output || !Array.isArray(output.hotels)) continue;
    const hotels = output.hotels.filter(
      (hotel): hotel is { name: string; address?: unknown } => typeof hotel === 'object' && hotel !== null && typeof hotel.name === 'string',
    );
    const booked = hotels.find((hotel) => hotel.name === output.booked_hotel) ?? hotels[0];
    if (booked) return typeof booked.address === 'string' ? `${booked.name}（${booked.address}）` : booked.name;
  }
  return undefined;
}

/** Flight search: three flights for the route and day. */
export const flightAgent: DemoAgentDefinition = {
  id: 'flight_agent',
  streaming: false,
  async handle({ inputs }) {
    const missing = checkInputs(inputs, [
      { key: 'origin', description: '出发城市' },
      { key: 'destination', description: '到达城市' },
      { key: 'date', description: '出发日期', ...DATE_RULE },
    ]);
    if (missing) return missing;
    const origin = String(inputs.origin).trim();
    const destination = String(inputs.destination).trim();
    const date = resolveDate(inputs.date)!;
    if (canonicalCity(origin) === canonicalCity(destination)) {
      return { status: 'failed', message: `出发城市和到达城市都是${origin}，无法查询航班` };
    }
    const route = `${canonicalCity(origin)}|${canonicalCity(destination)}`;
    const durationMinutes = 110 + (hashNumber(route) % 10) * 10;
    const flights = [0, 1, 2].map((index) => {
      const seed = `${route}|${date}|${index}`;
      const [code, airline] = airlineFor(seed);
      const departMinutes = (7 + index * 5) * 60 + (hashNumber(`minute|${seed}`) % 12) * 5;
      return {
        flight_no: `${code}${1000 + (hashNumber(`number|${seed}`) % 9000)}`,
        airline,
        origin,
        destination,
        departure: formatDateTime(date, departMinutes),
        arrival: formatDateTime(date, departMinutes + durationMinutes),
        price: 500 + (hashNumber(`price|${seed}`) % 150) * 10,
      };
    });
    const cheapest = flights.reduce((best, flight) => (flight.price < best.price ? flight : best));
    return {
      status: 'completed',
      output: { origin, destination, date, flights },
      message: `${date} ${origin}飞往${destination}共有 ${flights.length} 个航班，最低价为${cheapest.airline} ${cheapest.flight_no}，¥${cheapest.price}。`,
    };
  },
};

/** `YYYY-MM-DD HH:MM`, `minutes` counted from midnight of `date` (may roll over). */
function formatDateTime(date: string, minutes: number): string {
  const day = addDays(date, Math.floor(minutes / 1440));
  const inDay = minutes % 1440;
  return `${day} ${String(Math.floor(inDay / 60)).padStart(2, '0')}:${String(inDay % 60).padStart(2, '0')}`;
}

/** Weather: streams two progress events, then a three-day forecast. */
export const weatherAgent: DemoAgentDefinition = {
  id: 'weather_agent',
  streaming: true,
  async handle({ inputs }, context) {
    const missing = checkInputs(inputs, [{ key: 'city', description: '查询城市' }]);
    if (missing) return missing;
    const city = String(inputs.city).trim();
    // `date` is optional: anything unrecognised means "from today".
    const start = resolveDate(inputs.date) ?? resolveDate('today')!;
    await context.progress(`正在查询${city}的天气…`);
    await context.progress(`正在整理${city}未来三天的预报…`);
    const [high, low] = climateOf(city);
    const forecast = [0, 1, 2].map((offset) => {
      const date = addDays(start, offset);
      const seed = `${canonicalCity(city)}|${date}`;
      const swing = (hashNumber(`swing|${seed}`) % 7) - 3;
      return { date, condition: conditionFor(seed), high: high + swing, low: low + swing - (hashNumber(`low|${seed}`) % 3) };
    });
    const today = forecast[0]!;
    const umbrella = forecast.some((day) => day.condition.includes('雨')) ? '，有降雨，记得带伞' : '';
    return {
      status: 'completed',
      output: { city, forecast },
      message: `${city} ${today.date}：${today.condition}，${today.low}~${today.high}°C${umbrella}。`,
    };
  },
};

/** The four demo agents, keyed by the short names `startDemoAgents` uses. */
export const TRAVEL_AGENTS = {
  hotel: hotelAgent,
  limo: limoAgent,
  flight: flightAgent,
  weather: weatherAgent,
} as const satisfies Record<string, DemoAgentDefinition>;
