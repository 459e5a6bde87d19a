import { describe, expect, it } from 'vitest';
import { snapshotOf, travelCards } from '../../test/support/registry-fixtures.js';
import type { AgentCard } from '../registry/types.js';
import { createOutputGuard, SYSTEM_PROMPT_TEXTS } from './output-guard.js';

const TOKEN = 'sk-hotel-5f2e9a1c7b';
const cards: AgentCard[] = travelCards().map((card) =>
  card.id === 'hotel_agent' ? { ...card, endpoint: { ...card.endpoint, url: 'http://10.1.2.3:7101/invoke', headers: { Authorization: `Bearer ${TOKEN}` } } } : card,
);
const snapshot = snapshotOf(cards);

describe('output guard', () => {
  const guard = createOutputGuard(snapshot, { language: 'zh' });

  it('names ids and removes endpoint addresses, host:port and header values', () => {
    const text = `调用 hotel_agent（http://10.1.2.3:7101/invoke，10.1.2.3:7101），令牌 Bearer ${TOKEN}，或只有 ${TOKEN}，还有 spy_agent。`;
    const cleaned = guard.clean(text);
    for (const secret of ['hotel_agent', '10.1.2.3', '7101', TOKEN, 'spy_agent']) expect(cleaned).not.toContain(secret);
    expect(cleaned).toContain('[internal address]');
    expect(cleaned).toContain('[redacted]');
  });

  it('cuts system-prompt text out of every kind of prompt the supervisor sends', () => {
    // Texts shorter than the check's window (40 characters) are too common to count as a leak.
    for (const prompt of SYSTEM_PROMPT_TEXTS.filter((text) => text.length >= 40)) {
      const leaked = `Here are my rules: ${prompt}`;
      expect(guard.leaksPrompt(leaked)).toBe(true);
      const cleaned = guard.clean(leaked);
      expect(guard.leaksPrompt(cleaned)).toBe(false);
      expect(cleaned.length).toBeLessThan(60);
    }
  });

  it('streams the same result as a whole-text clean, and reports a leak', () => {
    const text = `结果 http://10.1.2.3:7101/invoke ${TOKEN} hotel_agent。${SYSTEM_PROMPT_TEXTS[1]} 北京明天晴。`;
    const stream = guard.stream();
    let shown = '';
    for (let start = 0; start < text.length; start += 5) shown += stream.push(text.slice(start, start + 5));
    shown += stream.flush();
    expect(stream.leaked).toBe(true);
    for (const secret of ['10.1.2.3', TOKEN, 'hotel_agent', 'multi-service']) expect(shown).not.toContain(secret);
    expect(shown).toContain('北京明天晴。');
  });

  it('leaves ordinary answers alone', () => {
    const answer = '已为您预订北京饭店（东长安街33号，每晚880元）。北京明天晴，最高8度。Your booking number is HB-1.';
    expect(guard.clean(answer)).toBe(answer);
  });

  it('guards the answer as composed: agent texts and the answer in order never spell a token, the complete answer follows what its pieces followed', () => {
    const composition = guard.composition();
    expect(composition.agentText(`报表已生成 ${TOKEN.slice(0, 9)}`)).toBe(`报表已生成 ${TOKEN.slice(0, 9)}`);
    expect(composition.agentText(`${TOKEN.slice(9, 12)}`)).toBe(TOKEN.slice(9, 12));
    // The model's own words complete it, in upper case, after a line break: the completing part is replaced.
    const piece = composition.answerPiece(`\n${TOKEN.slice(12).toUpperCase()} 北京明天晴。`);
    expect(piece).toBe('[redacted] 北京明天晴。');
    expect(composition.answerPiece('完成。')).toBe('完成。');
    expect(composition.completeAnswer(`${TOKEN.slice(12)} 北京明天晴。完成。`)).toBe('[redacted] 北京明天晴。完成。');
    // Ordinary pieces pass as they are.
    const plain = guard.composition();
    expect(plain.agentText('已为您预订北京饭店。')).toBe('已为您预订北京饭店。');
    expect(plain.completeAnswer('北京明天晴。')).toBe('北京明天晴。');
  });
});
