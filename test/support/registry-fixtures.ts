/**
 * Hand-built snapshots mirroring the sample registries (travel and
 * e-commerce), for unit tests. Built as plain objects so these tests do
 * not depend on the registry loader.
 */
import type { AgentCard, ExtractSpec, RegistrySnapshot, SemanticKeySpec } from '../../src/registry/types.js';
import { SUPERVISOR_DEFAULTS } from '../../src/registry/defaults.js';
import { compileSafePattern } from '../../src/util/safe-pattern.js';

const CITIES = ['北京', '上海', '广州', '深圳', '杭州', '成都', '西安', 'Beijing', 'Shanghai', 'Guangzhou', 'Shenzhen', 'Hangzhou', 'Chengdu'];
const AIRPORTS = [
  '首都机场', '大兴机场', '浦东机场', '虹桥机场', '白云机场', '宝安机场', '萧山机场', '天府机场',
  'Capital Airport', 'Daxing Airport', 'Pudong Airport', 'Hongqiao Airport', 'Baiyun Airport',
];

/** A pattern spec with its compiled regex, as the loader produces it. */
export function patternSpec(pattern: string, flags = ''): ExtractSpec {
  const compiled = compileSafePattern(pattern, flags);
  if (!compiled.ok) throw new Error(compiled.error);
  return { type: 'pattern', pattern, flags, matcher: compiled.pattern };
}

/** One semantic key spec. */
export function keySpec(key: string, description: string, extract: ExtractSpec, widget = ''): SemanticKeySpec {
  return { key, description, widget, extract };
}

/** A card with defaults for everything the intent code does not read. */
export function card(fields: Partial<AgentCard> & Pick<AgentCard, 'id' | 'name' | 'description'>): AgentCard {
  return {
    enabled: true,
    examples: [],
    keywords: [],
    dependsOn: [],
    endpoint: { url: `http://127.0.0.1:7000/${fields.id}`, protocol: 'http-json', timeoutMs: 10000, retries: 1, headers: {} },
    requiredKeys: [],
    ...fields,
  };
}

/** A snapshot over the given cards (enabled ones routable). */
export function snapshotOf(cards: readonly AgentCard[], version = 'test'): RegistrySnapshot {
  return {
    version,
    loadedAt: '2026-01-01T00:00:00.000Z',
    sourcePath: 'agents_config.yaml',
    supervisor: SUPERVISOR_DEFAULTS,
    widgets: {},
    agents: cards,
    byId: new Map(cards.map((entry) => [entry.id, entry])),
    enabledAgents: cards.filter((entry) => entry.enabled),
  };
}

/** The travel demo cards (root agents_config.yaml). */
export function travelCards(): AgentCard[] {
  return [
    card({
      id: 'hotel_agent',
      name: '酒店服务',
      description: '酒店查询与预订 / hotel search and booking',
      examples: ['帮我订北京的酒店', '上海有什么好的酒店推荐', 'book a hotel in Shanghai', 'find me a hotel near the airport'],
      keywords: ['酒店', '住宿', '宾馆', '入住', 'hotel', 'accommodation'],
      sideEffects: true,
      requiredKeys: [
        keySpec('city', '入住城市', { type: 'enum', values: CITIES }, 'city_selector'),
        keySpec('check_in_date', '入住日期', { type: 'date' }, 'date_picker'),
      ],
    }),
    card({
      id: 'limo_agent',
      name: '机场接送机服务',
      description: '机场接机、送机专车预约 / airport transfer booking',
      examples: ['明天早上7点到首都机场接机', '帮我安排浦东机场送机', 'book an airport pickup at 7am'],
      keywords: ['接机', '送机', '接送机', '专车', 'airport transfer', 'pickup', 'limo'],
      dependsOn: ['hotel_agent'],
      sideEffects: true,
      requiredKeys: [
        keySpec('airport', '机场', { type: 'enum', values: AIRPORTS }, 'airport_selector'),
        keySpec(
          'pickup_time',
          '接机时间',
          patternSpec('(?:凌晨|早上|上午|中午|下午|晚上)?\\s*\\d{1,2}\\s*(?:点半?|[:：]\\d{2})|\\d{1,2}(?::\\d{2})?\\s*(?:am|pm)', 'i'),
          'time_picker',
        ),
      ],
    }),
    card({
      id: 'flight_agent',
      name: '机票服务',
      description: '国内航班查询与机票预订 / flight search and tickets',
      examples: ['从北京飞上海的机票', '帮我查明天去广州的航班', 'book a flight from Beijing to Shanghai'],
      keywords: ['机票', '航班', '飞机', 'flight', 'plane ticket', 'airline'],
      requiredKeys: [
        keySpec('origin', '出发城市', patternSpec('从\\s*(北京|上海|广州|深圳|杭州|成都|西安)'), 'city_selector'),
        keySpec('destination', '到达城市', patternSpec('(?:到|飞往?|去)\\s*(北京|上海|广州|深圳|杭州|成都|西安)'), 'city_selector'),
        keySpec('date', '出发日期', { type: 'date' }, 'date_picker'),
      ],
    }),
    card({
      id: 'weather_agent',
      name: '天气查询',
      description: '城市天气预报查询 / weather forecast',
      examples: ['北京明天的天气怎么样', '明天会下雨吗', "what's the weather in Shanghai"],
      keywords: ['天气', '气温', '下雨', '预报', 'weather', 'forecast', 'temperature'],
      endpoint: { url: 'http://127.0.0.1:7104/invoke', protocol: 'http-sse', timeoutMs: 10000, retries: 1, headers: {} },
      requiredKeys: [keySpec('city', '查询城市', { type: 'enum', values: CITIES }, 'city_selector')],
    }),
  ];
}

/** A one-key weather agent (city: 北京 or 上海) answering http-json at `url`, without retries: the card of turn tests. */
export function weatherCard(url: string): AgentCard {
  return card({
    id: 'weather_agent',
    name: '天气查询',
    description: '城市天气预报查询',
    examples: ['北京明天的天气怎么样'],
    keywords: ['天气', 'weather'],
    endpoint: { url, protocol: 'http-json', timeoutMs: 5000, retries: 0, headers: {} },
    requiredKeys: [keySpec('city', '查询城市', { type: 'enum', values: ['北京', '上海'] }, 'city_selector')],
  });
}

/** The e-commerce customer-service cards (examples/ecommerce). */
export function ecommerceCards(): AgentCard[] {
  const orderId = keySpec('order_id', '订单号', patternSpec('(?:订单号?[:：]?\\s*)?\\b(\\d{10,20})\\b'), 'order_selector');
  return [
    card({
      id: 'order_agent',
      name: '订单查询',
      description: '查询订单状态与详情 / order status',
      examples: ['查一下我的订单', '我的订单到哪一步了', 'check my order status'],
      keywords: ['订单', 'order'],
      requiredKeys: [orderId],
    }),
    card({
      id: 'logistics_agent',
      name: '物流查询',
      description: '查询包裹物流与快递进度 / shipping tracking',
      examples: ['我的快递到哪了', '查物流', 'where is my package'],
      keywords: ['物流', '快递', '包裹', '发货', 'shipping', 'package', 'tracking', 'delivery'],
      requiredKeys: [orderId],
    }),
    card({
      id: 'refund_agent',
      name: '退款服务',
      description: '申请退款退货 / refunds and returns',
      examples: ['我要退款', '这个商品质量有问题想退货', 'I want a refund'],
      keywords: ['退款', '退货', '退钱', 'refund', 'return'],
      dependsOn: ['order_agent'],
      sideEffects: true,
      requiredKeys: [orderId, keySpec('refund_reason', '退款原因', { type: 'enum', values: ['质量问题', '七天无理由', '发错货', '少件', 'quality issue', 'wrong item'] }, 'reason_picker')],
    }),
    card({
      id: 'invoice_agent',
      name: '发票服务',
      description: '开具电子发票并发送到邮箱 / invoices',
      examples: ['帮我开发票', '发票发到我邮箱', 'I need an invoice'],
      keywords: ['发票', '开票', 'invoice', 'receipt'],
      requiredKeys: [orderId, keySpec('email', '接收邮箱', { type: 'email' }, 'email_input')],
    }),
    card({
      id: 'product_faq_agent',
      name: '商品咨询',
      description: '商品参数、尺码、使用方法等咨询 / product questions',
      examples: ['这款手机支持快充吗', '衣服尺码怎么选', 'is this product waterproof'],
      keywords: ['商品', '尺码', '参数', '规格', 'product', 'size'],
    }),
  ];
}
