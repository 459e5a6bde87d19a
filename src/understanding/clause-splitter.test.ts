import { describe, expect, it } from 'vitest';
import { separatorBetween, splitClauses, splitRequests } from './clause-splitter.js';

const texts = (text: string) => splitClauses(text).map((clause) => clause.text);

describe('splitClauses', () => {
  it('splits at punctuation and connectives', () => {
    expect(texts('帮我订北京的酒店，安排接机，再告诉我天气')).toEqual(['帮我订北京的酒店', '安排接机', '告诉我天气']);
    expect(texts('book a hotel and then a flight')).toEqual(['book a hotel', 'a flight']);
    expect(texts('订酒店然后查天气')).toEqual(['订酒店', '查天气']);
    expect(texts('Book a hotel. Then check the weather.')).toEqual(['Book a hotel', 'check the weather']);
    const text = '订酒店。 查天气';
    for (const clause of splitClauses(text)) expect(text.slice(clause.start, clause.start + clause.text.length)).toBe(clause.text);
  });

  it('splits at 和 before a second request verb, not between two nouns', () => {
    expect(texts('订北京的酒店和查上海的天气')).toEqual(['订北京的酒店', '查上海的天气']);
    expect(texts('北京的酒店和天气')).toEqual(['北京的酒店和天气']);
  });

  it.each([
    ['an email address', '开发票发到 zhang.san@example.com，谢谢', ['开发票发到 zhang.san@example.com', '谢谢']],
    ['an email at the end of a sentence', 'send it to zhang.san@example.com. Thanks', ['send it to zhang.san@example.com', 'Thanks']],
    ['a URL with a query string', '看看 https://shop.example.com/item?id=3&x=1, 有货吗', ['看看 https://shop.example.com/item?id=3&x=1', '有货吗']],
    ['a decimal', '体重2.5公斤的包裹，到哪了', ['体重2.5公斤的包裹', '到哪了']],
    ['a price with thousands separators', '退款1,299.00元，再查物流', ['退款1,299.00元', '查物流']],
    ['a clock time', '明天10:30接机，再订酒店', ['明天10:30接机', '订酒店']],
    ['a dotted name', 'is example.com down? check v1.2.3 too', ['is example.com down', 'check v1.2.3 too']],
  ])('never cuts %s', (_, text, expected) => {
    expect(texts(text)).toEqual(expected);
  });

  it('reports the separator the user wrote between two clauses', () => {
    const text = 'hotels and weather in Beijing';
    const [left, right] = splitClauses(text);
    expect(separatorBetween(text, left!, right!)).toBe(' and ');
  });
});

describe('splitRequests', () => {
  const requests = (text: string) => splitRequests(text).map((request) => request.text);

  it('keeps clauses joined by a comma, a full stop or a bare "and" as one request told in parts', () => {
    expect(requests('I ordered my card 2 weeks ago and it still isn\'t here? What do I do?')).toEqual(['I ordered my card 2 weeks ago and it still isn\'t here? What do I do']);
    expect(requests('i tried to pay the electric bill. the payment didn\'t go through, when is it due')).toHaveLength(1);
    expect(requests('东西寄出了吗，单号 1234567890')).toEqual(['东西寄出了吗，单号 1234567890']);
  });

  it('starts another request at 另外 / 还有 / 再 / 和 before a verb, "and also", "then", and "and" before a question or an order', () => {
    expect(requests('查一下订单的状态，还有物流到哪了')).toEqual(['查一下订单的状态', '物流到哪了']);
    expect(requests('上海的酒店帮我订两晚，另外后天下午两点虹桥机场送机')).toEqual(['上海的酒店帮我订两晚', '后天下午两点虹桥机场送机']);
    expect(requests('订北京的酒店和查上海的天气')).toEqual(['订北京的酒店', '查上海的天气']);
    expect(requests("what's my checking balance, and also transfer 50 dollars to savings")).toEqual(["what's my checking balance", 'transfer 50 dollars to savings']);
    expect(requests('check the status of order 2024051812345678, and where is the parcel now')).toEqual(['check the status of order 2024051812345678', 'where is the parcel now']);
    expect(requests('I deposited cash this morning and I am still waiting')).toEqual(['I deposited cash this morning and I am still waiting']);
  });

  it('starts another request at an order in the imperative, after "and" or punctuation, when both parts say something', () => {
    expect(requests("what's my checking balance and transfer 50 dollars to savings")).toEqual(["what's my checking balance", 'transfer 50 dollars to savings']);
    expect(requests('check my balance. transfer 50 dollars to savings')).toEqual(['check my balance', 'transfer 50 dollars to savings']);
    expect(requests('pay my phone bill, remind me to call mom at 5')).toEqual(['pay my phone bill', 'remind me to call mom at 5']);
    expect(requests('查一下余额，帮我转五十块到储蓄账户')).toEqual(['查一下余额', '帮我转五十块到储蓄账户']);
    // Not an order with content, or nothing before it but a greeting; not an imperative at all.
    expect(requests('i need to move money to savings, help me with that')).toHaveLength(1);
    expect(requests('hi there, give me the progress of my mobile plan')).toHaveLength(1);
    expect(requests('麻烦你，帮我订网购的东西')).toHaveLength(1);
    expect(requests('I waited a week and waited a week more')).toHaveLength(1);
    expect(requests('I lost my card and it still is not found')).toHaveLength(1);
  });
});

