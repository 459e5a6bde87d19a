/**
 * What the four demo travel agents answer. Each handler is a plain function of
 * the request body (docs/api.md#sub-agent-wire-protocol) — no HTTP here — and replies in the shapes the
 * root `agents_config.yaml` declares as `output_schema`. A required input that
 * is absent or malformed gets `status: input_required` with `missing_keys`.
 * Messages follow the language of the request's `message` (the user's words
 * for this task): English for an English request, Chinese otherwise; the data
 * in `output` is the same in both.
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

/** The language to answer in: English when the task's words have no Chinese characters. */
export function replyLanguage(request: Pick<AgentRequestBody, 'message'>): 'en' | 'zh' {
  return /[\u3400-\u9fff]/.test(request.message ?? '') ? 'zh' : 'en';
}

const CONDITIONS_EN: Readonly<Record<string, string>> = { 晴: 'sunny', 多云: 'cloudy', 阴: 'overcast', 小雨: 'light rain', 晴转多云: 'sunny, then cloudy', 阵雨: 'showers' };

interface InputRule {
  key: string;
  description: string;
  /** The description in English. */
  english: string;
  /** Extra check for a present value; the hint names the expected form. */
  valid?: (value: unknown) => boolean;
  hint?: string;
}

/** `input_required` naming every required input that is absent or malformed, else undefined. */
function checkInputs(inputs: Record<string, unknown>, rules: readonly InputRule[], language: 'en' | 'zh'): AgentReply | undefined {
  const problems = rules.filter((rule) => {
    const value = inputs[rule.key];
    if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) return true;
    return rule.valid ? !rule.valid(value) : typeof value !== 'string';
  });
  if (problems.length === 0) return undefined;
  const english = language === 'en';
  const wording = problems.map((rule) => {
    const name = english ? rule.english : rule.description;
    const hint = english ? 'as YYYY-MM-DD' : rule.hint;
    return rule.hint && inputs[rule.key] !== undefined ? (english ? `${name} (${hint})` : `${name}（${hint}）`) : name;
  });
  return {
    status: 'input_required',
    missing_keys: problems.map((rule) => rule.key),
    message: english ? `Please also give: ${wording.join(', ')}` : `还需要您提供：${wording.join('、')}`,
  };
}

const DATE_RULE = { valid: (value: unknown) => resolveDate(value) !== undefined, hint: '格式 YYYY-MM-DD' };

/** Hotel search and booking: three hotels of the city, the first one booked. */
export const hotelAgent: DemoAgentDefinition = {
  id: 'hotel_agent',
  streaming: false,
  async handle(request) {
    const { task_id: taskId, inputs } = request;
    const english = replyLanguage(request) === 'en';
    const missing = checkInputs(
      inputs,
      [
        { key: 'city', description: '入住城市', english: 'check-in city' },
        { key: 'check_in_date', description: '入住日期', english: 'check-in date', ...DATE_RULE },
      ],
      english ? 'en' : 'zh',
    );
    if (missing) return missing;
    const nights = inputs.nights ?? 1;
    if (!Number.isInteger(nights) || (nights as number) < 1) {
      return { status: 'failed', message: english ? `The number of nights must be a positive whole number, got ${JSON.stringify(nights)}` : `入住晚数必须是正整数，收到的是 ${JSON.stringify(nights)}` };
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
      message: english
        ? `Found ${hotels.length} hotels in ${city} (check-in ${checkInDate}, ${nights} night${nights === 1 ? '' : 's'}) and booked ${booked.name} (¥${booked.price}/night), order ${bookingId}.`
        : `已为您找到${city}的 ${hotels.length} 家酒店（${checkInDate} 入住，共 ${nights} 晚），` + `并预订了${booked.name}（¥${booked.price}/晚），订单号 ${bookingId}。`,
    };
  },
};

/** Airport transfer: drives to the hotel booked upstream when there is one. */
export const limoAgent: DemoAgentDefinition = {
  id: 'limo_agent',
  streaming: false,
  async handle(request) {
    const { task_id: taskId, inputs, upstream } = request;
    const english = replyLanguage(request) === 'en';
    const missing = checkInputs(
      inputs,
      [
        { key: 'airport', description: '机场', english: 'airport' },
        { key: 'pickup_time', description: '接机时间', english: 'pickup time' },
      ],
      english ? 'en' : 'zh',
    );
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
      message: english
        ? `Pickup arranged at ${airport} at ${when}, driver ${driver}${destination ? `, to ${destination}` : ''}. Order ${bookingId}.`
        : `已安排${when}在${airport}接机，司机${driver}${destination ? `，将送您前往${destination}` : ''}。订单号 ${bookingId}。`,
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
  async handle(request) {
    const { inputs } = request;
    const english = replyLanguage(request) === 'en';
    const missing = checkInputs(
      inputs,
      [
        { key: 'origin', description: '出发城市', english: 'departure city' },
        { key: 'destination', description: '到达城市', english: 'arrival city' },
        { key: 'date', description: '出发日期', english: 'departure date', ...DATE_RULE },
      ],
      english ? 'en' : 'zh',
    );
    if (missing) return missing;
    const origin = String(inputs.origin).trim();
    const destination = String(inputs.destination).trim();
    const date = resolveDate(inputs.date)!;
    if (canonicalCity(origin) === canonicalCity(destination)) {
      return { status: 'failed', message: english ? `Departure and arrival are both ${origin}: no flights to look for` : `出发城市和到达城市都是${origin}，无法查询航班` };
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
      message: english
        ? `${flights.length} flights from ${origin} to ${destination} on ${date}; the cheapest is ${cheapest.airline} ${cheapest.flight_no} at ¥${cheapest.price}.`
        : `${date} ${origin}飞往${destination}共有 ${flights.length} 个航班，最低价为${cheapest.airline} ${cheapest.flight_no}，¥${cheapest.price}。`,
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
  async handle(request, context) {
    const { inputs } = request;
    const english = replyLanguage(request) === 'en';
    const missing = checkInputs(inputs, [{ key: 'city', description: '查询城市', english: 'city' }], english ? 'en' : 'zh');
    if (missing) return missing;
    const city = String(inputs.city).trim();
    // `date` is optional: anything unrecognised means "from today".
    const start = resolveDate(inputs.date) ?? resolveDate('today')!;
    await context.progress(english ? `Looking up the weather in ${city}…` : `正在查询${city}的天气…`);
    await context.progress(english ? `Putting together the three-day forecast for ${city}…` : `正在整理${city}未来三天的预报…`);
    const [high, low] = climateOf(city);
    const forecast = [0, 1, 2].map((offset) => {
      const date = addDays(start, offset);
      const seed = `${canonicalCity(city)}|${date}`;
      const swing = (hashNumber(`swing|${seed}`) % 7) - 3;
      return { date, condition: conditionFor(seed), high: high + swing, low: low + swing - (hashNumber(`low|${seed}`) % 3) };
    });
    const today = forecast[0]!;
    const rainy = forecast.some((day) => day.condition.includes('雨'));
    return {
      status: 'completed',
      output: { city, forecast },
      message: english
        ? `${city} ${today.date}: ${CONDITIONS_EN[today.condition] ?? today.condition}, ${today.low} to ${today.high}°C${rainy ? '; rain is expected, take an umbrella' : ''}.`
        : `${city} ${today.date}：${today.condition}，${today.low}~${today.high}°C${rainy ? '，有降雨，记得带伞' : ''}。`,
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
