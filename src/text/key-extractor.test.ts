import { describe, expect, it } from 'vitest';
import type { ExtractSpec } from '../registry/types.js';
import { extractForAgent, extractKeys, extractOne, missingKeys } from './key-extractor.js';
import { keySpec, patternSpec, travelCards, ecommerceCards } from '../../test/support/registry-fixtures.js';

/** Wednesday 2026-11-25, local time. */
const TODAY = new Date(2026, 10, 25, 15, 30);

function run(text: string, spec: ExtractSpec) {
  return extractOne(text.normalize('NFKC'), spec, TODAY);
}

describe('enum', () => {
  const cities: ExtractSpec = { type: 'enum', values: ['北京', '上海', '北京南站', 'Beijing', 'Shanghai'] };
  it.each([
    ['帮我订北京的酒店', '北京'],
    ['到北京南站接我', '北京南站'],
    ['book a hotel in BEIJING', 'Beijing'],
    ['hotel in shanghai please', 'Shanghai'],
    ['帮我订北京的酒店，上海', '上海'],
  ])('%s → %s', (text, value) => {
    expect(run(text, cities)).toMatchObject({ value });
  });
  it.each(['book a hotel in beijingese town', '帮我订个酒店', ''])('%j → nothing', (text) => {
    expect(run(text, cities)).toBeNull();
  });
  it.each([
    ['广州的酒店', '广州'],
    ['book a hotel in Nanjing', 'Nanjing'],
  ])('%s → invalid %s: a name the enum does not list is reported, not dropped', (text, raw) => {
    expect(run(text, cities)).toEqual({ raw, reason: `"${raw}" is not one of 北京, 上海, 北京南站, Beijing, Shanghai` });
  });
});

describe('pattern', () => {
  const origin = patternSpec('从\\s*(北京|上海|广州)');
  const pickup = patternSpec('(?:凌晨|早上|上午|中午|下午|晚上)?\\s*\\d{1,2}\\s*(?:点半?|[:：]\\d{2})|\\d{1,2}(?::\\d{2})?\\s*(?:am|pm)', 'i');
  it.each([
    ['从北京飞上海', 'origin', '北京'],
    ['从 上海 出发', 'origin', '上海'],
    ['明天早上7点到首都机场接机', 'pickup', '早上7点'],
    ['pick me up at 7 PM', 'pickup', '7 PM'],
    ['pick me up at 7:30', 'pickup', '7:30'],
    ['下午3点半，不对，晚上8点', 'pickup', '晚上8点'],
    ['晚上８点', 'pickup', '晚上8点'],
  ])('%s (%s) → %s', (text, which, value) => {
    expect(run(text, which === 'origin' ? origin : pickup)).toMatchObject({ value });
  });
  it('uses the whole match when there is no group, and nothing when absent', () => {
    expect(run('单号 AB-1234', patternSpec('[A-Z]{2}-\\d+'))).toMatchObject({ value: 'AB-1234' });
    expect(run('飞上海', origin)).toBeNull();
  });
});

describe('number', () => {
  const nights: ExtractSpec = { type: 'number', min: 1, max: 30 };
  it.each([
    ['住3晚', 3],
    ['住两晚', 2],
    ['十五天', 15],
    ['二十三个人', 23],
    ['三', 3],
    ['12月1日入住，住两晚', 2],
    ['2026-12-01 入住 4 晚', 4],
    ['明天早上7点到，住2晚', 2],
    ['1.5', 1.5],
  ])('%s → %s', (text, value) => {
    expect(run(text, { type: 'number' })).toMatchObject({ value });
  });
  it.each([
    ['充值1,000元', 1000],
    ['claim 12,500.50 dollars', 12500.5],
    ['充1万元', 10000],
    ['报销3千块', 3000],
    ['top up 2k', 2000],
    ['预算1.5万', 15000],
    ['订好了,住2晚', 2],
  ])('%s → %s (grouped digits and multipliers)', (text, value) => {
    expect(run(text, { type: 'number' })).toMatchObject({ value });
  });
  it.each(['帮我查一下', '一起去', '', '12月1日'])('%j → nothing', (text) => {
    expect(run(text, { type: 'number' })).toBeNull();
  });
  it('reports values out of range as invalid', () => {
    expect(run('住40晚', nights)).toMatchObject({ raw: '40', reason: expect.stringContaining('maximum 30') });
    expect(run('住零晚', nights)).toMatchObject({ raw: '零', reason: expect.stringContaining('minimum 1') });
    expect(run('住5晚', nights)).toMatchObject({ value: 5 });
  });
});

describe('phone', () => {
  const phone: ExtractSpec = { type: 'phone' };
  it.each([
    ['我的手机号13812345678', '13812345678'],
    ['call 139-1234-5678', '13912345678'],
    ['+86 158 1234 5678', '15812345678'],
    ['手机１３８１２３４５６７８', '13812345678'],
  ])('%s → %s', (text, value) => {
    expect(run(text, phone)).toMatchObject({ value });
  });
  it.each([
    ['电话1381234567', '1381234567'],
    ['138123456789', '138123456789'],
    ['12345678901', '12345678901'],
    ['手机 88886666', '88886666'],
  ])('%s → invalid %s', (text, raw) => {
    expect(run(text, phone)).toMatchObject({ raw, reason: expect.stringContaining('mobile') });
  });
  it('finds nothing without a phone-like number', () => {
    expect(run('明天7点接机', phone)).toBeNull();
  });
});

describe('email', () => {
  const email: ExtractSpec = { type: 'email' };
  it.each([
    ['发到我邮箱abc.de@example.com谢谢', 'abc.de@example.com'],
    ['mail: Li_Lei+inv@mail.example.cn.', 'Li_Lei+inv@mail.example.cn'],
  ])('%s → %s', (text, value) => {
    expect(run(text, email)).toMatchObject({ value });
  });
  it.each(['邮箱是abc@', 'send to a@b', 'x@@y.com', 'a..b@example.com'])('%j → invalid', (text) => {
    expect(run(text, email)).toMatchObject({ reason: expect.stringContaining('not a valid email') });
  });
  it('finds nothing without @', () => {
    expect(run('我的邮箱', email)).toBeNull();
  });
});

describe('date (today = Wednesday 2026-11-25)', () => {
  const date: ExtractSpec = { type: 'date' };
  it.each([
    ['2026-12-01入住', '2026-12-01'],
    ['2026/12/1', '2026-12-01'],
    ['2027年1月5日', '2027-01-05'],
    ['12月1日入住', '2026-12-01'],
    ['12月1号', '2026-12-01'],
    ['十二月一日', '2026-12-01'],
    ['3月2日', '2027-03-02'],
    ['11月25日', '2026-11-25'],
    ['今天', '2026-11-25'],
    ['明天', '2026-11-26'],
    ['后天', '2026-11-27'],
    ['大后天', '2026-11-28'],
    ['周五', '2026-11-27'],
    ['星期三', '2026-11-25'],
    ['周一', '2026-11-30'],
    ['本周一', '2026-11-23'],
    ['下周一', '2026-11-30'],
    ['下周日', '2026-12-06'],
    ['下个星期五', '2026-12-04'],
    ['下下周二', '2026-12-08'],
    ['tomorrow', '2026-11-26'],
    ['今晚', '2026-11-25'],
    ['明晚入住', '2026-11-26'],
    ['tomorrow night', '2026-11-26'],
    ['today', '2026-11-25'],
    ['the day after tomorrow', '2026-11-27'],
    ['next monday', '2026-11-30'],
    ['on Friday', '2026-11-27'],
    ['this Friday', '2026-11-27'],
    ['this Monday', '2026-11-30'],
    ['this Wednesday', '2026-11-25'],
    ['Dec 1', '2026-12-01'],
    ['December 31st', '2026-12-31'],
    ['1 Dec 2027', '2027-12-01'],
    ['Jan 3', '2027-01-03'],
    ['明天，不对，后天', '2026-11-27'],
    ['２０２６－１２－０１', '2026-12-01'],
  ])('%s → %s', (text, value) => {
    expect(run(text, date)).toMatchObject({ value });
  });
  it.each([
    ['13月40日', 'month 13'],
    ['2月30日', 'day 30'],
    ['2026-02-29', 'day 29'],
    ['2026-13-01', 'month 13'],
  ])('%s → invalid (%s)', (text, reason) => {
    expect(run(text, date)).toMatchObject({ raw: text, reason: expect.stringContaining(reason) });
  });
  it.each(['帮我订酒店', '早上7点', '订单号1234567890123', '周末'])('%j → nothing', (text) => {
    expect(run(text, date)).toBeNull();
  });
  it('crosses month and year ends with local dates', () => {
    const newYearsEve = new Date(2026, 11, 31, 23, 59);
    expect(extractOne('明天', date, newYearsEve)).toMatchObject({ value: '2027-01-01' });
    expect(extractOne('下周一', date, newYearsEve)).toMatchObject({ value: '2027-01-04' });
    expect(extractOne('2月29日', date, new Date(2028, 0, 10))).toMatchObject({ value: '2028-02-29' });
  });
});

describe('text', () => {
  it('takes the whole trimmed text', () => {
    expect(run('  随便说点什么 ', { type: 'text' })).toMatchObject({ value: '随便说点什么' });
    expect(run('   ', { type: 'text' })).toBeNull();
  });
});

describe('extractKeys / extractForAgent', () => {
  const [hotel, limo, flight] = travelCards();

  it('extracts every key of a card', () => {
    expect(extractForAgent('帮我订北京的酒店，12月1日入住', hotel!, TODAY)).toEqual({ values: { city: '北京', check_in_date: '2026-12-01' }, invalid: [] });
    expect(extractForAgent('明天早上7点到首都机场接机', limo!, TODAY)).toEqual({ values: { airport: '首都机场', pickup_time: '早上7点' }, invalid: [] });
    expect(extractForAgent('从北京飞上海的机票，后天', flight!, TODAY)).toEqual({
      values: { origin: '北京', destination: '上海', date: '2026-11-27' },
      invalid: [],
    });
  });

  it('separates missing from invalid', () => {
    const result = extractForAgent('订北京的酒店，13月40日入住', hotel!, TODAY);
    expect(result.values).toEqual({ city: '北京' });
    expect(result.invalid).toEqual([{ key: 'check_in_date', raw: '13月40日', reason: expect.stringContaining('month 13') }]);
    expect(missingKeys(result, hotel!.requiredKeys)).toEqual([]);
    expect(missingKeys(extractForAgent('订酒店', hotel!, TODAY), hotel!.requiredKeys).map((spec) => spec.key)).toEqual(['city', 'check_in_date']);
  });

  it('reads the e-commerce keys', () => {
    const invoice = ecommerceCards().find((entry) => entry.id === 'invoice_agent')!;
    expect(extractForAgent('订单号1234567890123的发票发到a@b.com', invoice, TODAY)).toEqual({
      values: { order_id: '1234567890123', email: 'a@b.com' },
      invalid: [],
    });
    const refund = ecommerceCards().find((entry) => entry.id === 'refund_agent')!;
    expect(extractForAgent('Quality Issue', refund, TODAY).values).toEqual({ refund_reason: 'quality issue' });
  });

  it('does not read a number key from digits another key of the card took, nor from digits no number holds exactly', () => {
    const amount = keySpec('amount', 'amount', { type: 'number' });
    const card = keySpec('bank_card', 'bank card', patternSpec('([0-9]{16,19})'));
    expect(extractKeys('claim 120 dollars for a team lunch to card 6222021234567890128', [amount, card], TODAY).values).toEqual({
      amount: 120,
      bank_card: '6222021234567890128',
    });
    expect(extractKeys('报销到卡号6222021234567890128', [amount, card], TODAY).values).toEqual({ bank_card: '6222021234567890128' });
    expect(run('卡号 6222021234567890128', { type: 'number' })).toBeNull();
  });

  it('does not read a number key from an identifier the user labelled as one, nor prefer a long bare id over an amount', () => {
    const amount = keySpec('amount', 'amount', { type: 'number' });
    expect(extractKeys('我要报销300元打车费，发票号12345678', [amount], TODAY).values).toEqual({ amount: 300 });
    expect(extractKeys('给13812345678充100块话费，我的订单号是20261129', [amount], TODAY).values).toEqual({ amount: 100 });
    expect(extractKeys('claim 45 dollars, receipt no. 7788', [amount], TODAY).values).toEqual({ amount: 45 });
    expect(extractKeys('订单号是20261129', [amount], TODAY).values).toEqual({});
    expect(extractKeys('金额改成50', [amount], TODAY).values).toEqual({ amount: 50 });
  });

  it('does not report as off-list a value another key of the card took', () => {
    const medication = keySpec('medication', 'medication', { type: 'enum', values: ['lisinopril', 'metformin', 'atorvastatin'] });
    const pharmacy = keySpec('pharmacy', 'pharmacy', { type: 'enum', values: ['Main Street Pharmacy', 'Harbor Pharmacy'] });
    expect(extractKeys('yes but send it to Main Street Pharmacy', [medication, pharmacy], TODAY)).toEqual({ values: { pharmacy: 'Main Street Pharmacy' }, invalid: [] });
    expect(extractKeys('refill my aspirin at Harbor Pharmacy', [medication, pharmacy], TODAY).values).toEqual({ pharmacy: 'Harbor Pharmacy' });
  });

  it('does not take an enum value the user ruled out (not / instead of / rather than / 不是 / 别用)', () => {
    const department = keySpec('department', 'department', { type: 'enum', values: ['cardiology', 'dermatology', 'pediatrics'] });
    const leave = keySpec('leave_type', 'leave type', { type: 'enum', values: ['年假', '病假', 'annual', 'sick'] });
    expect(extractKeys('dermatology, not cardiology', [department], TODAY).values).toEqual({ department: 'dermatology' });
    expect(extractKeys('book dermatology instead of cardiology', [department], TODAY).values).toEqual({ department: 'dermatology' });
    expect(extractKeys('sick leave rather than annual', [leave], TODAY).values).toEqual({ leave_type: 'sick' });
    expect(extractKeys('要病假，不是年假', [leave], TODAY).values).toEqual({ leave_type: '病假' });
    expect(extractKeys('改成病假，别用年假', [leave], TODAY).values).toEqual({ leave_type: '病假' });
    expect(extractKeys('not cardiology', [department], TODAY)).toEqual({ values: {}, invalid: [] });
    expect(extractKeys('not cardiology, dermatology', [department], TODAY).values).toEqual({ department: 'dermatology' });
    // A question (是不是 / 要不要) rules nothing out.
    expect(extractKeys('是不是病假更合适', [leave], TODAY).values).toEqual({ leave_type: '病假' });
    expect(extractKeys('要不要年假', [leave], TODAY).values).toEqual({ leave_type: '年假' });
  });

  it('does not take a pattern value or a date the user ruled out', () => {
    const patient = keySpec('patient_id', 'patient id', patternSpec('\\b(P[0-9]{6})\\b'));
    const date = keySpec('date', 'date', { type: 'date' });
    expect(extractKeys('show lab results for P654321, not P123456', [patient], TODAY).values).toEqual({ patient_id: 'P654321' });
    expect(extractKeys('查P654321的报告，不是P123456', [patient], TODAY).values).toEqual({ patient_id: 'P654321' });
    expect(extractKeys('December 3, not December 4', [date], TODAY).values).toEqual({ date: '2026-12-03' });
    expect(extractKeys('not P123456', [patient], TODAY).values).toEqual({});
  });

  it('does not take a phone number or an e-mail address the user ruled out', () => {
    const phone = keySpec('phone', 'phone', { type: 'phone' });
    const email = keySpec('email', 'email', { type: 'email' });
    expect(extractKeys('call 13900002222, not 13812345678', [phone], TODAY).values).toEqual({ phone: '13900002222' });
    expect(extractKeys('号码是13900002222，不是13812345678', [phone], TODAY).values).toEqual({ phone: '13900002222' });
    expect(extractKeys('send it to a@b.com rather than c@d.com', [email], TODAY).values).toEqual({ email: 'a@b.com' });
  });

  it('prefers an amount of money to another bare number, and never reads a number out of a slashed date', () => {
    const amount = keySpec('amount', 'amount', { type: 'number' });
    expect(extractKeys('claim $45.50 for lunch on 12/3', [amount], TODAY).values).toEqual({ amount: 45.5 });
    expect(extractKeys('充值50元，3号线旁边的营业厅', [amount], TODAY).values).toEqual({ amount: 50 });
    expect(extractKeys('I paid 30 dollars for 2 taxis', [amount], TODAY).values).toEqual({ amount: 30 });
    const nights = keySpec('nights', '入住晚数', { type: 'number' });
    expect(extractKeys('预算500元，住3晚', [nights], TODAY).values).toEqual({ nights: 3 });
  });

  it('reports an unsupported spec type instead of throwing', () => {
    const bogus = keySpec('x', 'x', { type: 'colour' } as unknown as ExtractSpec);
    expect(extractKeys('red', [bogus], TODAY).invalid).toEqual([{ key: 'x', raw: 'red', reason: 'unsupported extract type "colour"' }]);
  });

  it('treats a non-string text as empty', () => {
    expect(extractKeys(undefined as unknown as string, hotel!.requiredKeys, TODAY)).toEqual({ values: {}, invalid: [] });
  });
});

describe('a reading asked for again', () => {
  it('is the same reading, for that text, key and day only, and nobody can change it', () => {
    const date: ExtractSpec = { type: 'date' };
    const first = extractOne('明天入住', date, TODAY);
    expect(first).toEqual({ value: '2026-11-26', raw: '明天' });
    expect(extractOne('明天入住', date, TODAY)).toBe(first);
    // Another day reads the same words as its own tomorrow; another key of the same shape reads them afresh.
    expect(extractOne('明天入住', date, new Date(2026, 10, 26, 9, 0))).toEqual({ value: '2026-11-27', raw: '明天' });
    const other = extractOne('明天入住', { type: 'date' }, TODAY);
    expect(other).toEqual(first);
    expect(other).not.toBe(first);
    expect(() => {
      (first as { value: string }).value = '2030-01-01';
    }).toThrow(TypeError);
    expect(extractOne('明天入住', date, TODAY)).toEqual({ value: '2026-11-26', raw: '明天' });
    // Nothing found is remembered as nothing.
    expect(extractOne('随便看看', date, TODAY)).toBeNull();
    expect(extractOne('随便看看', date, TODAY)).toBeNull();
  });

  it('remembers only the latest texts of a key', () => {
    const city: ExtractSpec = { type: 'enum', values: ['北京', '上海'] };
    const first = extractOne('去北京', city, TODAY);
    for (let index = 0; index < 200; index++) extractOne(`去上海 ${index}`, city, TODAY);
    const again = extractOne('去北京', city, TODAY);
    expect(again).toEqual(first);
    expect(again).not.toBe(first);
  });
});
