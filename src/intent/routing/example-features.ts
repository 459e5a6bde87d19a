/**
 * The features the example model reads from a text: Chinese runs give
 * character 1-, 2- and 3-grams; Latin words give the word, the next-word
 * bigram and character 3- and 4-grams of the padded word (so "booking" meets
 * "book" and "reschedule" meets "rescheduled"). Function words (particles,
 * stop words) give nothing. Masked spans (slot values) and digits give
 * nothing either.
 */
import { isFunctionTerm } from '../../text/index.js';

/** A text span to ignore (e.g. a slot value), in UTF-16 offsets. */
export interface TextMask {
  start: number;
  end: number;
}

const TOKEN = /\p{Script=Han}+|[a-z][a-z']*|0+/gu;
export const HAN_START = /^\p{Script=Han}/u;
const UNIGRAM_WEIGHT = 0.5;
const GRAM_WEIGHT = 0.25;

/**
 * The weighted features of a text (before IDF), the text being in normal form (NFKC) already: a
 * query's units are parts of the reading's normal form, registry texts are normalised when the
 * model is built (`ranker-model.ts`). Exported for tests.
 */
export function featuresOf(text: string, masks: readonly TextMask[] = []): Map<string, number> {
  let prepared = text;
  if (masks.length > 0) {
    let masked = '';
    let last = 0;
    for (const mask of [...masks].sort((a, b) => a.start - b.start)) {
      if (mask.start < last) continue;
      masked += `${prepared.slice(last, mask.start)} `;
      last = Math.max(last, mask.end);
    }
    prepared = masked + prepared.slice(last);
  }
  prepared = prepared.toLowerCase().replace(/\d+/gu, '0');
  const features = new Map<string, number>();
  const add = (feature: string, weight: number) => features.set(feature, (features.get(feature) ?? 0) + weight);
  let previousWord: string | undefined;
  for (const match of prepared.matchAll(TOKEN)) {
    const token = match[0];
    if (HAN_START.test(token)) {
      previousWord = undefined;
      // Particles (的 了 我 有 ...) and function bigrams (今天 什么 怎么 ...) end a piece: no n-gram
      // spans them, so "有什么好玩" shares nothing with "有什么好的酒店".
      for (const piece of contentPieces(token)) {
        for (let index = 0; index < piece.length; index += 1) {
          add(piece[index]!, UNIGRAM_WEIGHT);
          if (index + 1 < piece.length) add(piece.slice(index, index + 2), 1);
          if (index + 2 < piece.length) add(piece.slice(index, index + 3), 1);
        }
      }
      continue;
    }
    if (token.startsWith('0')) {
      previousWord = undefined;
      continue;
    }
    const word = token.replace(/'s$|'/gu, '');
    if (word.length === 0 || isFunctionTerm(word)) continue;
    add(`w ${word}`, 1);
    if (previousWord !== undefined) add(`b ${previousWord} ${word}`, 1);
    previousWord = word;
    const padded = `<${word}>`;
    for (let size = 3; size <= 4; size += 1) for (let index = 0; index + size <= padded.length; index += 1) add(padded.slice(index, index + size), GRAM_WEIGHT);
  }
  return features;
}

/** The runs of a Chinese token left after removing particles and function bigrams. */
function contentPieces(token: string): string[] {
  const pieces: string[] = [];
  for (const part of token.split(/[的了吗呢吧啊呀嘛哦和与及我你您他她它们请帮把给是在有个这那]+/u)) {
    const covered = new Uint8Array(part.length);
    for (let index = 0; index + 1 < part.length; index += 1) {
      if (isFunctionTerm(part.slice(index, index + 2))) covered[index] = covered[index + 1] = 1;
    }
    let current = '';
    for (let index = 0; index < part.length; index += 1) {
      if (covered[index] === 1) {
        if (current.length > 0) pieces.push(current);
        current = '';
      } else current += part[index];
    }
    if (current.length > 0) pieces.push(current);
  }
  return pieces;
}

/** Words, word pairs and Chinese terms of two or more characters; not single characters or word pieces. */
export function isStrongFeature(feature: string): boolean {
  return feature.startsWith('w ') || feature.startsWith('b ') || (feature.length >= 2 && HAN_START.test(feature) && !feature.includes('<'));
}

/** Sublinear term frequency; fractional weights (unigrams, n-grams) stay as they are. */
export function termWeight(count: number): number {
  return count > 1 ? 1 + Math.log(count) : count;
}
