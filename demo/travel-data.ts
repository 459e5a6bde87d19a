/**
 * Fixed reference data and the deterministic "randomness" of the demo travel
 * agents: every number they return is derived from a hash of the inputs, so the
 * same request always gets the same answer (reproducible demos and tests).
 */
import { createHash } from 'node:crypto';

/** Canonical (Chinese) city name for the English spellings the registry accepts. */
const CITY_ALIASES: Readonly<Record<string, string>> = {
  beijing: '北京',
  shanghai: '上海',
  guangzhou: '广州',
  shenzhen: '深圳',
  hangzhou: '杭州',
  chengdu: '成都',
  "xi'an": '西安',
  xian: '西安',
};

interface CityInfo {
  readonly hotels: readonly (readonly [name: string, address: string])[];
  /** Typical daily high and low, in °C. */
  readonly climate: readonly [high: number, low: number];
  readonly plate: string;
}

const CITIES: Readonly<Record<string, CityInfo>> = {
  北京: {
    hotels: [
      ['长安街大酒店', '北京市东城区东长安街18号'],
      ['三里屯花园酒店', '北京市朝阳区三里屯路9号'],
      ['颐和园畔精品酒店', '北京市海淀区颐和园路6号'],
    ],
    climate: [12, 0],
    plate: '京A',
  },
  上海: {
    hotels: [
      ['外滩江景酒店', '上海市黄浦区中山东一路20号'],
      ['陆家嘴云端酒店', '上海市浦东新区世纪大道88号'],
      ['静安寺庭院酒店', '上海市静安区南京西路1600号'],
    ],
    climate: [15, 7],
    plate: '沪A',
  },
  广州: {
    hotels: [
      ['珠江新城大酒店', '广州市天河区珠江东路16号'],
      ['沙面古韵酒店', '广州市荔湾区沙面北街52号'],
      ['白云山麓度假酒店', '广州市白云区广园中路801号'],
    ],
    climate: [23, 15],
    plate: '粤A',
  },
  深圳: {
    hotels: [
      ['深南大道商务酒店', '深圳市福田区深南大道6008号'],
      ['蛇口海景酒店', '深圳市南山区望海路1177号'],
      ['华侨城公园酒店', '深圳市南山区华侨城深南大道9009号'],
    ],
    climate: [24, 16],
    plate: '粤B',
  },
  杭州: {
    hotels: [
      ['西湖畔湖景酒店', '杭州市西湖区北山街78号'],
      ['钱江新城大酒店', '杭州市上城区富春路168号'],
      ['西溪湿地度假酒店', '杭州市西湖区天目山路398号'],
    ],
    climate: [16, 8],
    plate: '浙A',
  },
  成都: {
    hotels: [
      ['春熙路中心酒店', '成都市锦江区春熙路南段8号'],
      ['宽窄巷子院落酒店', '成都市青羊区长顺上街127号'],
      ['天府新区会展酒店', '成都市双流区天府大道南段2001号'],
    ],
    climate: [14, 7],
    plate: '川A',
  },
  西安: {
    hotels: [
      ['钟楼古城酒店', '西安市碑林区东大街1号'],
      ['大雁塔文旅酒店', '西安市雁塔区雁塔南路318号'],
      ['曲江池畔酒店', '西安市雁塔区曲江池东路99号'],
    ],
    climate: [11, 1],
    plate: '陕A',
  },
};

/** Airport → canonical city, for Chinese and English airport names. */
const AIRPORT_CITIES: Readonly<Record<string, string>> = {
  首都机场: '北京',
  大兴机场: '北京',
  浦东机场: '上海',
  虹桥机场: '上海',
  白云机场: '广州',
  宝安机场: '深圳',
  萧山机场: '杭州',
  天府机场: '成都',
  'capital airport': '北京',
  'daxing airport': '北京',
  'pudong airport': '上海',
  'hongqiao airport': '上海',
  'baiyun airport': '广州',
};

const DRIVER_NAMES = ['王师傅', '李师傅', '张师傅', '刘师傅', '陈师傅', '赵师傅'] as const;
const CARS = ['黑色别克GL8', '白色丰田埃尔法', '黑色奔驰V级', '灰色红旗H9'] as const;
const AIRLINES = [
  ['CA', '中国国航'],
  ['MU', '东方航空'],
  ['CZ', '南方航空'],
  ['HU', '海南航空'],
  ['3U', '四川航空'],
] as const;
const CONDITIONS = ['晴', '多云', '阴', '小雨', '晴转多云', '阵雨'] as const;

/** A stable 32-bit number for a string. */
export function hashNumber(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0);
}

/** A stable short code (`PREFIX-1A2B3C4D`) for a string, e.g. a booking id from a task id. */
export function hashCode(prefix: string, text: string): string {
  return `${prefix}-${createHash('sha256').update(text).digest('hex').slice(0, 8).toUpperCase()}`;
}

/** Picks an element of `list` by a hash of `seed`. */
export function pick<T>(list: readonly T[], seed: string): T {
  return list[hashNumber(seed) % list.length]!;
}

/** The canonical city name for `city` (English spellings folded to Chinese). */
export function canonicalCity(city: string): string {
  const trimmed = city.trim();
  return CITY_ALIASES[trimmed.toLowerCase()] ?? trimmed;
}

/** Three hotels of a city: known ones for the demo cities, made-up ones elsewhere. */
export function hotelsOf(city: string): readonly (readonly [string, string])[] {
  const known = CITIES[canonicalCity(city)];
  if (known) return known.hotels;
  return [
    [`${city}中心大酒店`, `${city}市中心人民路1号`],
    [`${city}站前商务酒店`, `${city}火车站前广场8号`],
    [`${city}湖畔度假酒店`, `${city}湖滨路66号`],
  ];
}

/** Typical high/low of a city in °C. */
export function climateOf(city: string): readonly [number, number] {
  return CITIES[canonicalCity(city)]?.climate ?? [18, 10];
}

/** A driver description for a booking, its plate matching the airport's city. */
export function driverFor(airport: string, seed: string): string {
  const city = AIRPORT_CITIES[airport.trim()] ?? AIRPORT_CITIES[airport.trim().toLowerCase()];
  const plate = (city && CITIES[city]?.plate) ?? '京A';
  const number = (hashNumber(`plate|${seed}`) % 90000) + 10000;
  const phoneTail = String(hashNumber(`phone|${seed}`) % 10000).padStart(4, '0');
  return `${pick(DRIVER_NAMES, `driver|${seed}`)}（${pick(CARS, `car|${seed}`)}，${plate}·${number}，电话 138****${phoneTail}）`;
}

/** An airline `[code, name]` for a seed. */
export function airlineFor(seed: string): readonly [string, string] {
  return pick(AIRLINES, seed);
}

/** A weather condition for a seed. */
export function conditionFor(seed: string): string {
  return pick(CONDITIONS, seed);
}

/** `YYYY-MM-DD` is a real calendar date. */
export function isIsoDate(value: unknown): value is string {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

const RELATIVE_DAYS: Readonly<Record<string, number>> = { 今天: 0, 今日: 0, today: 0, 明天: 1, 明日: 1, tomorrow: 1, 后天: 2 };

/**
 * A date input as `YYYY-MM-DD`: an ISO date as is, 今天/明天/后天 (today,
 * tomorrow) relative to `now` in UTC; undefined for anything else.
 */
export function resolveDate(value: unknown, now: Date = new Date()): string | undefined {
  if (isIsoDate(value)) return value;
  if (typeof value !== 'string') return undefined;
  const offset = RELATIVE_DAYS[value.trim().toLowerCase()];
  return offset === undefined ? undefined : addDays(now.toISOString().slice(0, 10), offset);
}

/** `date` plus `days`, as `YYYY-MM-DD`. */
export function addDays(date: string, days: number): string {
  const next = new Date(`${date}T00:00:00Z`);
  next.setUTCDate(next.getUTCDate() + days);
  return next.toISOString().slice(0, 10);
}
