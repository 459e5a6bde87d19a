import { describe, expect, it } from 'vitest';
import { gramsOf, trainGramClassifier, type GramDocument } from './gram-classifier.js';

/** Two cards that share their nouns and differ by their verbs, as a booking and a status card do. */
function documents(): GramDocument[] {
  const booking = ['book a flight to paris', 'reserve a seat on a plane', 'buy me a plane ticket', 'get me on a flight tomorrow', 'book two tickets to rome', '帮我订一张机票', '订明天的航班', '买一张飞北京的票', 'reserve a flight home', 'buy airfare to tokyo'];
  const status = ['is my flight delayed', 'has the plane landed', 'when does my flight arrive', 'is flight 88 on time', 'status of my plane', '航班延误了吗', '飞机到了没有', '我的航班几点到', 'is my flight late', 'track my flight'];
  return [...booking.map((text) => ({ text, card: 0 })), ...status.map((text) => ({ text, card: 1 }))];
}

describe('gram classifier', () => {
  it('reads character n-grams of Chinese runs and Latin words, L2-normalised, masked spans and digits left out', () => {
    const grams = gramsOf('订机票 to Paris 123', [{ start: 4, end: 6 }]);
    expect(grams.has('订机票')).toBe(true);
    expect(grams.has('w paris')).toBe(true);
    expect(grams.has('w to')).toBe(false);
    expect([...grams.keys()].some((gram) => /\d/.test(gram))).toBe(false);
    const norm = Math.sqrt([...grams.values()].reduce((sum, value) => sum + value * value, 0));
    expect(norm).toBeCloseTo(1, 6);
  });

  it('tells apart cards that share their nouns by the words that differ, in both languages', () => {
    const model = trainGramClassifier(documents(), 2);
    const booking = model.probabilities('please reserve me a plane seat to berlin');
    expect(booking[0]!).toBeGreaterThan(0.5);
    expect(booking[0]! + booking[1]!).toBeCloseTo(1, 9);
    expect(model.probabilities('我的飞机延误了没有')[1]!).toBeGreaterThan(0.5);
    // Nothing the model knows: no card is more likely than another.
    expect([...model.probabilities('zzz qqq')]).toEqual([0, 0]);
  });

  it('calibrates its temperature on every fifth example held out (when there are enough), and is reproducible', () => {
    // 20 texts: 4 held out, too few to calibrate on; twice as many: 8.
    expect(trainGramClassifier(documents(), 2).heldOut).toHaveLength(0);
    const more = [...documents(), ...documents().map((document) => ({ ...document, text: `please ${document.text}` }))];
    const model = trainGramClassifier(more, 2);
    expect(model.heldOut).toHaveLength(8);
    expect(model.heldOut.filter((example) => example.first).length).toBeGreaterThanOrEqual(6);
    expect(model.temperature).toBeGreaterThan(0);
    const again = trainGramClassifier(more, 2);
    expect([...again.probabilities('book a flight')]).toEqual([...model.probabilities('book a flight')]);
    expect(trainGramClassifier(more, 2, { holdOutEvery: 0 }).heldOut).toHaveLength(0);
  });

  it('with many cards, a step updates a text\'s own card and its closest rivals, and they are still told apart', () => {
    const cards = 200;
    const many: GramDocument[] = [];
    for (let card = 0; card < cards; card += 1) for (const verb of ['book', 'cancel', 'check', 'change', 'pay']) many.push({ text: `${verb} the service ${String.fromCharCode(97 + (card % 26))}${String.fromCharCode(97 + Math.floor(card / 26))}x`, card });
    const model = trainGramClassifier(many, cards, { denseWeights: 0 });
    const probabilities = model.probabilities('cancel the service bcx');
    let best = 0;
    for (let card = 1; card < cards; card += 1) if (probabilities[card]! > probabilities[best]!) best = card;
    // "bcx": b is the card number modulo 26, c the quotient.
    expect(best).toBe(1 + 2 * 26);
    expect(probabilities[best]!).toBeGreaterThan(0.5);
  });
});
