/**
 * Negative-emotion intensity of one message (seed 000's sentiment trigger),
 * from word lists rather than a model so it works offline and costs nothing:
 * a strong word (气死了, furious) counts 2, a mild one (失望, annoyed) 1; when
 * at least one of them is present, intensifiers (太, 简直, really), runs of
 * `!!`/`！！`/`??` and shouted words (ALL CAPS) add 0.5 each, up to 2 in all.
 * A message at or above `supervisor.escalation.emotion_threshold` goes to a
 * human. Words are matched leftmost-longest, so "太差劲" is one strong word,
 * not an intensifier plus a word.
 */
import { createPhraseMatcher, type PhraseMatcher } from '../text/index.js';
import type { EscalationSettings } from '../registry/index.js';

/** Built-in strong negative-emotion words (Chinese and English). */
export const STRONG_EMOTION_WORDS: readonly string[] = Object.freeze([
  '气死了', '气死我了', '太差劲', '差劲透了', '垃圾服务', '什么破', '破服务', '骗子', '坑人', '忍无可忍', '受够了', '恶心', '愤怒', '火大',
  '欺骗消费者', '要投诉你们', '投诉你们', '退钱', '无法接受', '太离谱', '离谱',
  'furious', 'outrageous', 'unacceptable', 'ridiculous', 'terrible service', 'worst', 'scam', 'fed up', 'disgusting', 'pathetic', 'livid',
  'rip-off', 'rip off', 'sick of',
]);

/** Built-in mild negative-emotion words. */
export const MILD_EMOTION_WORDS: readonly string[] = Object.freeze([
  '生气', '失望', '不满', '郁闷', '烦死', '烦人', '无语', '着急', '投诉', '差评', '太慢', '怎么还没', '到底', '搞什么', '不靠谱', '糟糕',
  'angry', 'annoyed', 'disappointed', 'frustrated', 'upset', 'complaint', 'unhappy', 'awful', 'terrible', 'still not', 'useless',
]);

/** Words that make an emotional message more intense. */
export const EMOTION_INTENSIFIERS: readonly string[] = Object.freeze([
  '太', '非常', '真的', '简直', '特别', '极其', '超级', '实在', '完全',
  'so', 'very', 'really', 'absolutely', 'totally', 'extremely', 'completely',
]);

const EMPHASIS = /[!！]{2,}|[?？]{2,}|[?？][!！]|[!！][?？]/g;
const SHOUTED = /\b[A-Z]{4,}\b/g;
const MAX_EMPHASIS = 2;

/** The intensity of one message and the words behind it. */
export interface EmotionScore {
  score: number;
  words: string[];
}

type Weight = 'strong' | 'mild' | 'intensifier';

/** Scores messages; one matcher per word-list combination. */
export interface EmotionScorer {
  /** Scores a message in its normal form (the turn's reading of it: `MessageReading.asRequest.normalizedQuery`). */
  score(normalizedText: string, settings?: Pick<EscalationSettings, 'emotionWords'>): EmotionScore;
}

/** Builds a scorer; `emotionWords` of a snapshot are added to the strong words (matchers cached per list). */
export function createEmotionScorer(): EmotionScorer {
  const matchers = new WeakMap<readonly string[], PhraseMatcher<Weight>>();
  const build = (extra: readonly string[]) =>
    createPhraseMatcher<Weight>([
      ...[...STRONG_EMOTION_WORDS, ...extra].map((phrase) => ({ phrase, payload: 'strong' as const })),
      ...MILD_EMOTION_WORDS.map((phrase) => ({ phrase, payload: 'mild' as const })),
      ...EMOTION_INTENSIFIERS.map((phrase) => ({ phrase, payload: 'intensifier' as const })),
    ]);
  const base = build([]);
  const matcherFor = (extra: readonly string[] | undefined): PhraseMatcher<Weight> => {
    if (!extra || extra.length === 0) return base;
    let matcher = matchers.get(extra);
    if (!matcher) {
      matcher = build(extra);
      matchers.set(extra, matcher);
    }
    return matcher;
  };

  return {
    score(normalised, settings) {
      const hits = matcherFor(settings?.emotionWords).findAll(normalised);
      let score = 0;
      let emphasis = 0;
      const words: string[] = [];
      for (const hit of hits) {
        // A phrase both strong and mild (a configured word that is also built in) counts once, as strong.
        const weight: Weight = hit.payloads.includes('strong') ? 'strong' : hit.payloads.includes('mild') ? 'mild' : 'intensifier';
        if (weight === 'intensifier') emphasis += 0.5;
        else {
          score += weight === 'strong' ? 2 : 1;
          words.push(hit.phrase);
        }
      }
      if (words.length === 0) return { score: 0, words };
      emphasis += 0.5 * ((normalised.match(EMPHASIS) ?? []).length + (normalised.match(SHOUTED) ?? []).length);
      return { score: score + Math.min(MAX_EMPHASIS, emphasis), words };
    },
  };
}
