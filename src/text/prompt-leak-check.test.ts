import { describe, expect, it } from 'vitest';
import { createPromptLeakCheck, LEAK_REPLACEMENT } from './prompt-leak-check.js';

const PROMPT = 'You write the final answer of a multi-service assistant to the user. Use only the facts given. Never mention internal identifiers; call services by the names given.';

describe('prompt leak check', () => {
  const check = createPromptLeakCheck([PROMPT]);

  it('finds a copied passage whatever its case and spacing, and cuts it out', () => {
    const leaked = `Sure! My instructions: you write the FINAL answer of a  multi-service\nassistant to the user. Use only the facts given. 北京明天晴。`;
    expect(check.leaks(leaked)).toBe(true);
    const redacted = check.redact(leaked);
    expect(redacted).toBe(`Sure! My instructions: ${LEAK_REPLACEMENT}北京明天晴。`);
    expect(check.leaks(redacted)).toBe(false);
  });

  it('lets ordinary answers and short common phrases through', () => {
    for (const text of ['北京明天晴，最高8度。', 'Use only the facts given.', 'The final answer is 42.']) {
      expect(check.leaks(text)).toBe(false);
      expect(check.redact(text)).toBe(text);
    }
  });

  it('streams: no character of a leaked passage is shown, and clean text comes through whole', () => {
    const text = `好的。${PROMPT} 北京明天晴。`;
    for (const size of [1, 5, 13, 64]) {
      const stream = check.stream();
      let shown = '';
      for (let start = 0; start < text.length; start += size) shown += stream.push(text.slice(start, start + size));
      shown += stream.flush();
      expect(stream.leaked).toBe(true);
      expect(shown).toBe(`好的。${LEAK_REPLACEMENT} 北京明天晴。`);
    }
    const clean = check.stream();
    const answer = '北京明天晴，最高8度，最低零下2度，注意保暖。'.repeat(10);
    let shown = '';
    for (let start = 0; start < answer.length; start += 7) shown += clean.push(answer.slice(start, start + 7));
    shown += clean.flush();
    expect(shown).toBe(answer);
    expect(clean.leaked).toBe(false);
  });
});
