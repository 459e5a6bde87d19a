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
    const composition = guard.composition<string>();
    const texts = (shown: { text: string; tag: string }[]) => shown.map(({ text, tag }) => `${tag}:${text}`);
    // The end may begin the token: the piece waits whole for the next one (and that one, wholly inside it, too).
    expect(composition.agentText(`报表已生成 ${TOKEN.slice(0, 9)}`, 'a')).toEqual([]);
    expect(composition.agentText(`${TOKEN.slice(9, 12)}`, 'b')).toEqual([]);
    // The model's own words complete it, in upper case, after a line break: the begun and the completing parts are replaced.
    const piece = composition.answerPiece(`\n${TOKEN.slice(12).toUpperCase()} 北京明天晴。`, 'c');
    expect(texts(piece)).toEqual(['a:报表已生成 [redacted]', 'b:', 'c:[redacted] 北京明天晴。']);
    expect(texts(composition.answerPiece('完成。', 'd'))).toEqual(['d:完成。']);
    expect(texts(composition.completeAnswer(`${TOKEN.slice(12)} 北京明天晴。完成。`, 'e'))).toEqual(['e:[redacted] 北京明天晴。完成。']);
    // Ordinary pieces pass as they are, at once.
    const plain = guard.composition<string>();
    expect(texts(plain.agentText('已为您预订北京饭店。', 'a'))).toEqual(['a:已为您预订北京饭店。']);
    expect(texts(plain.completeAnswer('北京明天晴。', 'b'))).toEqual(['b:北京明天晴。']);
    expect(plain.flush()).toEqual([]);
  });

  it('holds a piece only while its end may begin a secret, and releases it whole when the next piece does not complete it or the turn ends', () => {
    const composition = guard.composition<string>();
    expect(composition.agentText(`编号 ${TOKEN.slice(0, 6)}`, 'a')).toEqual([]);
    expect(composition.agentText('，已完成。', 'b')).toEqual([
      { text: `编号 ${TOKEN.slice(0, 6)}`, tag: 'a' },
      { text: '，已完成。', tag: 'b' },
    ]);
    expect(composition.agentText(`再见 ${TOKEN.slice(0, 5)}`, 'c')).toEqual([]);
    expect(composition.flush()).toEqual([{ text: `再见 ${TOKEN.slice(0, 5)}`, tag: 'c' }]);
    expect(composition.flush()).toEqual([]);
  });
});
