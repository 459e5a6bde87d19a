/**
 * Non-business turns recognised from word lists: requests for a human,
 * abusive or sensitive words, greetings, thanks/farewells and "what can you
 * do". Every list is replaceable through `SimpleIntentLexicon` (the offline
 * recognizer's options); the defaults cover Chinese and English.
 *
 * Escalation, abuse and sensitive words are found anywhere in the query.
 * Greeting, thanks and capability questions only count when they are (nearly)
 * the whole query: after removing those phrases and filler words at most two
 * Chinese characters and one Latin word remain, so "你好，帮我订酒店" stays a
 * business request.
 */
import { createPhraseMatcher, isHan, type PhraseMatcher } from '../../text/index.js';
import type { RegistrySnapshot } from '../../registry/index.js';

/** The configurable word lists. */
export interface SimpleIntentLexicon {
  greetings: readonly string[];
  thanks: readonly string[];
  farewells: readonly string[];
  capabilityQuestions: readonly string[];
  escalation: readonly string[];
  sensitive: readonly string[];
  abusive: readonly string[];
  /** Words ignored when deciding whether a greeting/thanks is the whole query. */
  fillers: readonly string[];
}

/** Defaults for every list (Chinese and English). */
export const DEFAULT_SIMPLE_INTENT_LEXICON: SimpleIntentLexicon = Object.freeze({
  greetings: [
    '你好', '您好', '嗨', '哈喽', '哈啰', '早上好', '上午好', '中午好', '下午好', '晚上好', '早安', '晚安', '在吗', '在不在',
    'hi', 'hello', 'hey', 'hiya', 'good morning', 'good afternoon', 'good evening', 'greetings', 'yo',
  ],
  thanks: ['谢谢', '多谢', '感谢', '谢了', '辛苦了', '非常感谢', 'thanks', 'thank you', 'thx', 'many thanks', 'cheers', 'appreciate it'],
  farewells: ['再见', '拜拜', '回头见', '下次见', 'bye', 'goodbye', 'good bye', 'see you', 'see ya', 'bye bye'],
  capabilityQuestions: [
    '你能做什么', '你会做什么', '你可以做什么', '你能干什么', '你会什么', '你能帮我做什么', '你可以帮我做什么', '能帮我做什么',
    '有什么功能', '有哪些功能', '有哪些服务', '有什么服务', '提供什么服务', '提供哪些服务', '你是谁', '怎么用', '使用帮助', '帮助',
    'what can you do', 'what do you do', 'what can you help with', 'what can you help me with', 'how can you help',
    'what services', 'who are you', 'help', 'capabilities', 'features',
  ],
  escalation: [
    '转人工', '人工客服', '人工服务', '找人工', '真人客服', '人工坐席', '接人工', '要人工', '客服人员',
    'human agent', 'talk to a person', 'talk to a human', 'speak to a human', 'speak to a person', 'real person',
    'live agent', 'customer service representative', 'speak to someone', 'talk to someone',
  ],
  sensitive: [
    '炸弹', '制造炸药', '枪支', '买枪', '毒品', '吸毒', '贩毒', '自杀', '自残', '洗钱', '赌博', '办假证', '假钞', '黑客攻击', '盗号',
    'bomb', 'explosive', 'buy a gun', 'drugs', 'cocaine', 'heroin', 'suicide', 'kill myself', 'self-harm',
    'money laundering', 'launder money', 'fake id', 'counterfeit', 'hack into',
  ],
  abusive: [
    '傻逼', '傻b', '煞笔', '妈的', '他妈', '操你', '草泥马', '滚蛋', '去死', '白痴', '蠢货', '脑残', '废物', '混蛋', '王八蛋', '贱人',
    'fuck', 'fucking', 'shit', 'asshole', 'bitch', 'idiot', 'moron', 'shut up', 'dumbass', 'bastard',
  ],
  fillers: [
    '请问', '请', '呢', '吗', '啊', '呀', '哦', '嗯', '吧', '的', '了', '啦', '哈', '嘛', '么', '我', '你', '您', '们', '非常', '很', '都', '呀',
    'please', 'so', 'much', 'very', 'a', 'lot', 'me', 'you', 'there', 'guys', 'all', 'for', 'with', 'to', 'your', 'oh', 'ok', 'okay', 'again',
  ],
});

/** A lexicon hit: which kind and the phrase that decided it. A farewell is reported as `thanks`. */
export interface SimpleIntentMatch<Kind extends string = string> {
  kind: Kind;
  phrase: string;
}

/** Classifies queries against a lexicon. Both methods read a query in normal form (`IntentInput.normalizedQuery`). */
export interface SimpleIntentClassifier {
  /** Escalation, abuse, sensitive topics: override any business match. */
  findOverride(query: string): SimpleIntentMatch<'escalate' | 'abusive' | 'sensitive'> | null;
  /** Greeting, thanks/bye, capabilities: only when they make up the whole query. */
  findSmallTalk(query: string): SimpleIntentMatch<'greeting' | 'thanks' | 'capabilities'> | null;
}

type SmallTalkKind = 'greeting' | 'thanks' | 'capabilities' | 'filler';

/** Builds a classifier; lists not given fall back to the defaults. */
export function createSimpleIntentClassifier(lexicon: Partial<SimpleIntentLexicon> = {}): SimpleIntentClassifier {
  const merged: SimpleIntentLexicon = { ...DEFAULT_SIMPLE_INTENT_LEXICON, ...lexicon };
  for (const [name, list] of Object.entries(merged)) {
    if (!Array.isArray(list) || list.some((entry) => typeof entry !== 'string')) {
      throw new TypeError(`simple intent lexicon: "${name}" must be an array of strings`);
    }
  }
  const overrides = createPhraseMatcher<'escalate' | 'abusive' | 'sensitive'>([
    ...merged.escalation.map((phrase) => ({ phrase, payload: 'escalate' as const })),
    ...merged.abusive.map((phrase) => ({ phrase, payload: 'abusive' as const })),
    ...merged.sensitive.map((phrase) => ({ phrase, payload: 'sensitive' as const })),
  ]);
  const smallTalk: PhraseMatcher<SmallTalkKind> = createPhraseMatcher<SmallTalkKind>([
    ...merged.greetings.map((phrase) => ({ phrase, payload: 'greeting' as const })),
    ...merged.thanks.map((phrase) => ({ phrase, payload: 'thanks' as const })),
    ...merged.farewells.map((phrase) => ({ phrase, payload: 'thanks' as const })),
    ...merged.capabilityQuestions.map((phrase) => ({ phrase, payload: 'capabilities' as const })),
    ...merged.fillers.map((phrase) => ({ phrase, payload: 'filler' as const })),
  ]);
  const priority: readonly ('escalate' | 'abusive' | 'sensitive')[] = ['escalate', 'abusive', 'sensitive'];

  return {
    findOverride(query) {
      const hits = overrides.findAll(query);
      for (const kind of priority) {
        const hit = hits.find((entry) => entry.payloads.includes(kind));
        if (hit) return { kind, phrase: hit.phrase };
      }
      return null;
    },
    findSmallTalk(text) {
      const hits = smallTalk.findAll(text);
      const meaningful = hits.filter((hit) => !hit.payloads.every((payload) => payload === 'filler'));
      if (meaningful.length === 0) return null;
      let rest = '';
      let last = 0;
      for (const hit of hits) {
        rest += ` ${text.slice(last, hit.start)} `;
        last = hit.end;
      }
      rest += text.slice(last);
      const residual = residualUnits(rest);
      if (residual.han > 2 || residual.words > 1) return null;
      const kinds = meaningful.map((hit) => hit.payloads.find((payload) => payload !== 'filler')!);
      const kind = kinds.includes('capabilities') ? 'capabilities' : kinds.includes('thanks') ? 'thanks' : 'greeting';
      return { kind, phrase: meaningful.find((hit) => hit.payloads.includes(kind))!.phrase };
    },
  };
}

/** Chinese characters and Latin/digit words in a text (punctuation ignored). */
export function residualUnits(text: string): { han: number; words: number } {
  let han = 0;
  for (const character of text) if (isHan(character)) han++;
  return { han, words: (text.match(/[A-Za-z0-9]+/g) ?? []).length };
}

/**
 * Classifiers for registry snapshots: the given lexicon (or the defaults) plus
 * the snapshot's `supervisor.word_lists`, built once per snapshot, so a
 * platform team's word-list edit takes effect with the next reload.
 */
export function createSnapshotClassifiers(lexicon: Partial<SimpleIntentLexicon> = {}): (snapshot: RegistrySnapshot) => SimpleIntentClassifier {
  const base: SimpleIntentLexicon = { ...DEFAULT_SIMPLE_INTENT_LEXICON, ...lexicon };
  const plain = createSimpleIntentClassifier(base);
  const bySnapshot = new WeakMap<RegistrySnapshot, SimpleIntentClassifier>();
  return (snapshot) => {
    const extra = snapshot.supervisor.wordLists;
    if (!extra || (extra.sensitive.length === 0 && extra.abusive.length === 0 && extra.escalation.length === 0)) return plain;
    let classifier = bySnapshot.get(snapshot);
    if (!classifier) {
      classifier = createSimpleIntentClassifier({
        ...base,
        sensitive: [...base.sensitive, ...extra.sensitive],
        abusive: [...base.abusive, ...extra.abusive],
        escalation: [...base.escalation, ...extra.escalation],
      });
      bySnapshot.set(snapshot, classifier);
    }
    return classifier;
  };
}

