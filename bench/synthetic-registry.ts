/**
 * Synthetic registries for routing scale tests: N agents, each an
 * (action × object) intent such as "cancel a flight" or "查询快递状态", with
 * `--examples` example utterances on its card and a held-out labelled set
 * (`eval.jsonl`) drawn from the same phrasings but never repeating an example.
 * Many agents share an object or an action, so a single word rarely decides;
 * word choice is skewed as in real usage (the first three verbs and the first
 * two object words of a list are three times as likely as the rest), so a
 * held-out line sometimes uses a word none of its card's examples use;
 * out-of-scope lines use objects no agent serves, with the same verbs; a few
 * lines ask for two intents at once. Half the text is Chinese, half English.
 * Above 150 agents (up to 750) the intents repeat per region ("northern
 * hotel room", "华北酒店"), for scale and latency runs.
 *
 * Run: `npx tsx bench/synthetic-registry.ts --agents 150 --examples 20 --eval 5 --out DIR`
 * then `npm run cli -- eval DIR/eval.jsonl --config DIR/agents_config.yaml`.
 * Deterministic for a given `--seed`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { createRandom, registryYaml } from './generated-registry.js';

interface Phrasing {
  en: string[];
  zh: string[];
}

const OBJECTS: (Phrasing & { id: string })[] = [
  { id: 'flight', en: ['flight', 'plane ticket', 'air ticket'], zh: ['航班', '机票', '飞机票'] },
  { id: 'hotel', en: ['hotel room', 'hotel stay', 'room reservation'], zh: ['酒店', '宾馆房间', '住的房间'] },
  { id: 'train', en: ['train ticket', 'rail ticket', 'train seat'], zh: ['火车票', '高铁票', '动车票'] },
  { id: 'rental_car', en: ['rental car', 'car hire', 'hired car'], zh: ['租车', '租的车', '汽车租赁'] },
  { id: 'restaurant', en: ['dinner reservation', 'restaurant table', 'table booking'], zh: ['餐厅预订', '饭店座位', '订的餐位'] },
  { id: 'credit_card', en: ['credit card', 'visa card', 'card'], zh: ['信用卡', '银行卡', '卡'] },
  { id: 'transfer', en: ['bank transfer', 'wire transfer', 'money transfer'], zh: ['转账', '汇款', '打款'] },
  { id: 'insurance', en: ['insurance policy', 'insurance cover', 'policy'], zh: ['保险', '保单', '保险合同'] },
  { id: 'phone_plan', en: ['phone plan', 'mobile plan', 'data plan'], zh: ['手机套餐', '话费套餐', '流量套餐'] },
  { id: 'broadband', en: ['broadband', 'internet service', 'home wifi'], zh: ['宽带', '家里网络', '上网服务'] },
  { id: 'electricity', en: ['electricity bill', 'power bill', 'electric bill'], zh: ['电费', '电费账单', '用电账单'] },
  { id: 'doctor', en: ['doctor appointment', 'clinic visit', 'medical appointment'], zh: ['挂号', '看病预约', '门诊预约'] },
  { id: 'parcel', en: ['parcel', 'package', 'delivery'], zh: ['快递', '包裹', '邮寄的东西'] },
  { id: 'subscription', en: ['subscription', 'streaming membership', 'monthly plan'], zh: ['会员', '订阅', '包月服务'] },
  { id: 'loan', en: ['loan', 'mortgage', 'credit line'], zh: ['贷款', '房贷', '借款'] },
  { id: 'password', en: ['password', 'login password', 'account password'], zh: ['密码', '登录密码', '账号密码'] },
  { id: 'meeting', en: ['meeting', 'calendar event', 'team meeting'], zh: ['会议', '日程', '开会安排'] },
  { id: 'alarm', en: ['alarm', 'wake-up alarm', 'reminder'], zh: ['闹钟', '提醒', '叫醒闹铃'] },
  { id: 'order', en: ['online order', 'purchase', 'shopping order'], zh: ['订单', '网购的东西', '买的商品'] },
  { id: 'movie', en: ['movie ticket', 'cinema seats', 'film tickets'], zh: ['电影票', '影院座位', '看电影的票'] },
  { id: 'taxi', en: ['taxi', 'cab', 'ride'], zh: ['出租车', '网约车', '车'] },
  { id: 'gift_card', en: ['gift card', 'voucher', 'gift certificate'], zh: ['礼品卡', '代金券', '购物卡'] },
  { id: 'tax', en: ['tax return', 'tax filing', 'taxes'], zh: ['个税', '报税', '纳税申报'] },
  { id: 'course', en: ['course', 'class enrollment', 'training program'], zh: ['课程', '培训班', '网课'] },
  { id: 'visa', en: ['visa', 'visa application', 'travel visa'], zh: ['签证', '签证申请', '旅游签'] },
  { id: 'parking', en: ['parking permit', 'parking spot', 'parking pass'], zh: ['停车位', '停车证', '车位'] },
  { id: 'cleaning', en: ['house cleaning', 'cleaner visit', 'cleaning service'], zh: ['保洁', '家政服务', '打扫卫生'] },
  { id: 'vaccine', en: ['vaccination', 'flu shot', 'vaccine appointment'], zh: ['疫苗', '打疫苗', '接种预约'] },
  { id: 'water_bill', en: ['water bill', 'water charges', 'water account'], zh: ['水费', '水费账单', '用水账单'] },
  { id: 'pet_grooming', en: ['pet grooming', 'dog grooming', 'grooming session'], zh: ['宠物美容', '给狗洗澡', '宠物护理'] },
];

/** Regions that repeat every intent for registries above 150 agents. */
const REGIONS: (Phrasing & { id: string })[] = [
  { id: 'north', en: ['northern', 'north side'], zh: ['华北', '北区'] },
  { id: 'south', en: ['southern', 'south side'], zh: ['华南', '南区'] },
  { id: 'east', en: ['eastern', 'east side'], zh: ['华东', '东区'] },
  { id: 'west', en: ['western', 'west side'], zh: ['西部', '西区'] },
];

/** Objects no agent serves: out-of-scope lines that still use the agents' verbs. */
const FOREIGN_OBJECTS: Phrasing[] = [
  { en: ['gym membership', 'fitness class'], zh: ['健身卡', '健身课'] },
  { en: ['concert tickets', 'show tickets'], zh: ['演唱会门票', '演出票'] },
  { en: ['library book', 'borrowed book'], zh: ['图书馆的书', '借的书'] },
  { en: ['boat trip', 'ferry ride'], zh: ['游船', '轮渡'] },
  { en: ['wedding venue', 'banquet hall'], zh: ['婚礼场地', '宴会厅'] },
  { en: ['piano lesson', 'guitar lesson'], zh: ['钢琴课', '吉他课'] },
];

/** Chitchat and general questions: out of scope for every agent. */
const CHITCHAT = [
  'tell me a joke', 'what is the meaning of life', 'who wrote hamlet', 'how tall is mount everest', 'what is two plus two',
  'sing me a song', 'what is your favourite colour', 'translate thank you into spanish', 'how do volcanoes form', 'are you a robot',
  '给我讲个笑话', '人生的意义是什么', '红楼梦是谁写的', '珠穆朗玛峰有多高', '你喜欢什么颜色', '唱首歌给我听', '恐龙是怎么灭绝的', '你是机器人吗', '今天星期几', '推荐一本好书',
];

const ACTIONS: (Phrasing & { id: string; enTemplates: string[]; zhTemplates: string[] })[] = [
  {
    id: 'book',
    en: ['book', 'reserve', 'set up', 'arrange', 'get me'],
    zh: ['预订', '帮我订', '安排', '办理', '预约'],
    enTemplates: ['{verb} a {object}', 'i want to {verb} one {object}', 'can you {verb} a {object} for me', 'please {verb} a new {object}', "i'd like to {verb} the {object}"],
    zhTemplates: ['{verb}{object}', '我想{verb}一个{object}', '能不能{verb}{object}', '麻烦{verb}一下{object}', '需要{verb}{object}'],
  },
  {
    id: 'cancel',
    en: ['cancel', 'call off', 'drop', 'terminate', 'get rid of'],
    zh: ['取消', '退掉', '撤销', '不要了', '作废'],
    enTemplates: ['{verb} my {object}', 'i need to {verb} my {object}', 'please {verb} the {object}', 'can you {verb} my {object}', 'i want to {verb} the {object} i have'],
    zhTemplates: ['{verb}我的{object}', '帮我把{object}{verb}', '{object}我要{verb}', '我想{verb}{object}', '麻烦把{object}{verb}'],
  },
  {
    id: 'status',
    en: ['status of', 'progress of', 'update on', 'news on', 'state of'],
    zh: ['进度', '状态', '情况', '最新消息', '处理到哪一步'],
    enTemplates: ['what is the {verb} my {object}', 'check the {verb} my {object}', 'any {verb} my {object}?', 'i want to know the {verb} my {object}', 'give me the {verb} my {object}'],
    zhTemplates: ['查一下{object}的{verb}', '我的{object}{verb}怎么样', '{object}现在什么{verb}', '想知道{object}的{verb}', '看看我的{object}{verb}'],
  },
  {
    id: 'change',
    en: ['change', 'modify', 'update', 'reschedule', 'move'],
    zh: ['修改', '更改', '改一下', '调整', '变更'],
    enTemplates: ['{verb} my {object}', 'i need to {verb} the {object}', 'can you {verb} my {object} to friday', 'please {verb} the {object} details', 'help me {verb} my {object}'],
    zhTemplates: ['{verb}我的{object}', '我想{verb}{object}的时间', '帮我{verb}{object}', '{object}需要{verb}', '能不能{verb}一下{object}'],
  },
  {
    id: 'cost',
    en: ['cost', 'price', 'fee', 'charge', 'rate'],
    zh: ['多少钱', '价格', '费用', '收费', '价钱'],
    enTemplates: ['what is the {verb} of a {object}', 'how much is the {verb} for a {object}', 'tell me the {verb} of my {object}', 'what {verb} do you have for a {object}', 'is the {verb} for a {object} high'],
    zhTemplates: ['{object}{verb}', '{object}的{verb}是多少', '问一下{object}{verb}', '{object}大概{verb}', '我的{object}{verb}怎么算'],
  },
];

const EN_PREFIXES = ['', '', 'hey, ', 'please, ', 'quick question: ', 'hi there, ', 'excuse me, '];
const EN_SUFFIXES = ['', '', ' please', ' for tomorrow', ' asap', ' this weekend', ' thanks', ' for my wife', ' right now'];
const ZH_PREFIXES = ['', '', '你好，', '请问', '麻烦你，', '喂，', '帮个忙，'];
const ZH_SUFFIXES = ['', '', '，谢谢', '，明天的', '，尽快', '，给我老婆的', '吧', '，急'];

/** One synthetic agent. */
export interface SyntheticAgent {
  id: string;
  name: string;
  description: string;
  keywords: string[];
  examples: string[];
  /** Held-out utterances (never among `examples`). */
  heldOut: string[];
}

/** A generated registry and its labelled set. */
export interface SyntheticRegistry {
  agents: SyntheticAgent[];
  yaml: string;
  evalLines: string[];
}

/** Generates `agents` intents with `examples` examples each and `heldOut` labelled lines per agent. */
export function generateSyntheticRegistry(options: { agents: number; examples: number; heldOut: number; seed?: number }): SyntheticRegistry {
  const random = createRandom(options.seed ?? 7);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  // Skewed choice: the first `common` entries are three times as likely as the others.
  const pickSkewed = <T>(items: readonly T[], common: number): T => {
    const weights = items.map((_, index) => (index < common ? 3 : 1));
    let roll = random() * weights.reduce((sum, weight) => sum + weight, 0);
    for (const [index, weight] of weights.entries()) {
      roll -= weight;
      if (roll < 0) return items[index] as T;
    }
    return items[items.length - 1] as T;
  };
  const maxAgents = OBJECTS.length * ACTIONS.length * (REGIONS.length + 1);
  if (!Number.isInteger(options.agents) || options.agents < 1 || options.agents > maxAgents) throw new RangeError(`agents must be 1..${maxAgents}`);
  const utterance = (action: (typeof ACTIONS)[number], object: Phrasing, language: 'en' | 'zh', region?: Phrasing): string => {
    const templates = language === 'en' ? action.enTemplates : action.zhTemplates;
    const place = region ? `${pick(region[language])}${language === 'en' ? ' ' : ''}` : '';
    const core = pick(templates).replace('{verb}', pickSkewed(action[language], 3)).replace('{object}', `${place}${pickSkewed(object[language], 2)}`);
    return language === 'en' ? `${pick(EN_PREFIXES)}${core}${pick(EN_SUFFIXES)}` : `${pick(ZH_PREFIXES)}${core}${pick(ZH_SUFFIXES)}`;
  };
  // Spread agents over objects first so a small registry still mixes domains.
  // Past 150 agents the same intents come again per region ("northern", "华北"), a word every utterance then carries.
  const pairs: [number, number, number][] = [];
  for (let regionIndex = -1; regionIndex < REGIONS.length; regionIndex += 1) {
    for (let actionIndex = 0; actionIndex < ACTIONS.length; actionIndex += 1) for (let objectIndex = 0; objectIndex < OBJECTS.length; objectIndex += 1) pairs.push([objectIndex, actionIndex, regionIndex]);
  }
  const agents: SyntheticAgent[] = pairs.slice(0, options.agents).map(([objectIndex, actionIndex, regionIndex]) => {
    const object = OBJECTS[objectIndex]!;
    const action = ACTIONS[actionIndex]!;
    const region = REGIONS[regionIndex];
    const seen = new Set<string>();
    const draw = (count: number): string[] => {
      const found: string[] = [];
      for (let attempt = 0; found.length < count && attempt < count * 50; attempt += 1) {
        const text = utterance(action, object, random() < 0.5 ? 'en' : 'zh', region);
        if (seen.has(text)) continue;
        seen.add(text);
        found.push(text);
      }
      return found;
    };
    const examples = draw(options.examples);
    const heldOut = draw(options.heldOut);
    const [enPlace, zhPlace] = region ? [`${region.en[0]} `, region.zh[0]] : ['', ''];
    return {
      id: `${action.id}_${object.id}${region ? `_${region.id}` : ''}`,
      name: `${action.en[0]} ${enPlace}${object.en[0]}`.replace(/ of$/u, ''),
      description: `${action.id} requests for a ${enPlace}${object.en[0]} (${zhPlace}${object.zh[0]}${action.zh[0]})`,
      keywords: [`${action.en[0]} ${enPlace}${object.en[0]}`.replace(/ of /u, ' '), `${zhPlace}${object.zh[0]}${action.zh[0]}`],
      examples,
      heldOut,
    };
  });

  const evalLines: string[] = [];
  for (const agent of agents) for (const query of agent.heldOut) evalLines.push(JSON.stringify({ query, agents: [agent.id] }));
  const outOfScope = Math.max(10, Math.round(agents.length * options.heldOut * 0.1));
  for (let index = 0; index < outOfScope; index += 1) {
    const query = index % 2 === 0 ? pick(CHITCHAT) : utterance(pick(ACTIONS), pick(FOREIGN_OBJECTS), random() < 0.5 ? 'en' : 'zh');
    evalLines.push(JSON.stringify({ query, agents: [] }));
  }
  const multi = Math.max(5, Math.round(agents.length * options.heldOut * 0.05));
  for (let index = 0; index < multi && agents.length > 1; index += 1) {
    const first = pick(agents);
    let second = pick(agents);
    while (second.id === first.id) second = pick(agents);
    const zh = random() < 0.5;
    const text = (agent: SyntheticAgent) => {
      const [objectIndex, actionIndex, regionIndex] = pairs[agents.indexOf(agent)]!;
      return utterance(ACTIONS[actionIndex]!, OBJECTS[objectIndex]!, zh ? 'zh' : 'en', REGIONS[regionIndex]);
    };
    evalLines.push(JSON.stringify({ query: zh ? `${text(first)}，另外${text(second)}` : `${text(first)}, and also ${text(second)}`, agents: [first.id, second.id] }));
  }

  const yaml = registryYaml('Generated by bench/synthetic-registry.ts — synthetic intents for routing scale tests.', agents, 20000);
  return { agents, yaml, evalLines };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { agents: { type: 'string' }, examples: { type: 'string' }, eval: { type: 'string' }, seed: { type: 'string' }, out: { type: 'string' } },
    strict: true,
  });
  const out = values.out ?? 'data/synthetic';
  const generated = generateSyntheticRegistry({
    agents: Number(values.agents ?? 150),
    examples: Number(values.examples ?? 20),
    heldOut: Number(values.eval ?? 5),
    seed: Number(values.seed ?? 7),
  });
  await mkdir(out, { recursive: true });
  await writeFile(join(out, 'agents_config.yaml'), generated.yaml);
  await writeFile(join(out, 'eval.jsonl'), `${generated.evalLines.join('\n')}\n`);
  console.log(`wrote ${join(out, 'agents_config.yaml')} (${generated.agents.length} agents) and ${join(out, 'eval.jsonl')} (${generated.evalLines.length} lines)`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
