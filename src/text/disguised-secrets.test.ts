import { describe, expect, it } from 'vitest';
import { createDisguisedSecrets, decodedCredential, disguisedForms, readingForm, readingText } from './disguised-secrets.js';
import { createTextScrubber, secretTerms } from './id-scrubber.js';

const TOKEN = 'vault-secret-4c1e9b7a2d';
const secrets = createDisguisedSecrets([`Bearer ${TOKEN}`, TOKEN, 'abc', 'short7x']);
const scrubber = createTextScrubber({ terms: secretTerms([`Bearer ${TOKEN}`]), disguised: { secrets, replacement: '[redacted]' } });
const base64 = (text: string) => Buffer.from(text).toString('base64');
const base64url = (text: string) => Buffer.from(text).toString('base64url');

describe('disguised secrets', () => {
  it.each([
    ['zero-width space inside', `${TOKEN.slice(0, 9)}\u200b${TOKEN.slice(9)}`],
    ['word joiner, BOM, soft hyphen, ZWJ', `${TOKEN.slice(0, 3)}\u2060${TOKEN.slice(3, 6)}\ufeff${TOKEN.slice(6, 9)}\u00ad${TOKEN.slice(9, 12)}\u200d${TOKEN.slice(12)}`],
    ['upper-cased', TOKEN.toUpperCase()],
    ['spaced out', TOKEN.split('').join(' ')],
    ['on two lines', `${TOKEN.slice(0, 10)}\n${TOKEN.slice(10)}`],
    ['full-width', [...TOKEN].map((char) => String.fromCharCode(char.charCodeAt(0) + 0xfee0)).join('')],
    ['base64', base64(TOKEN)],
    ['base64 in a longer text, offset 1', base64(`x${TOKEN}yz`)],
    ['base64 in a longer text, offset 2', base64(`{"k":"${TOKEN}"}`)],
    ['base64url, offset 1', base64url(`>${TOKEN}??`)],
    ['base64 of the whole header value', base64(`Authorization: Bearer ${TOKEN}`)],
    ['hex', Buffer.from(TOKEN).toString('hex')],
    ['upper hex', Buffer.from(TOKEN).toString('hex').toUpperCase()],
    ['percent-encoded, every byte', [...Buffer.from(TOKEN)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join('')],
    ['percent-encoded, some bytes, lower case', `vault%2dsecret%2D4c1e%39b7a2d`],
  ])('finds the token %s', (_label, disguise) => {
    const text = `请查收：${disguise}。谢谢`;
    const shown = scrubber.scrub(text);
    expect(shown).toContain('[redacted]');
    expect(shown).toMatch(/^请查收：.*。谢谢$/);
    expect(readingText(readingForm(shown))).not.toContain(TOKEN);
  });

  it('leaves ordinary text, short secrets in disguise and other base64 alone', () => {
    const text = 'ABC abc Short7X short 7x, dmF1bHQ= 50% off, Vault secret in hex: 76617';
    expect(scrubber.scrub(text)).toBe(text);
  });

  it('computes every form once, of the innermost secrets only', () => {
    expect(disguisedForms('abc')).toEqual([]);
    const forms = disguisedForms(TOKEN);
    expect(forms).toContain(TOKEN);
    expect(forms).toContain(Buffer.from(TOKEN).toString('hex'));
    expect(forms.length).toBeLessThanOrEqual(8);
    expect(secrets.longest).toBe(Buffer.from(TOKEN).toString('hex').length);
  });

  it('decodes a Basic credential and looks for what it stands for', () => {
    expect(decodedCredential(base64('alice:pa55word'))).toBe('alice:pa55word');
    expect(decodedCredential('not base64!')).toBeUndefined();
    const basic = createTextScrubber({ disguised: { secrets: createDisguisedSecrets([base64('alice:pa55word')]), replacement: '[redacted]' } });
    expect(basic.scrub('login with ALICE:PA55WORD')).toBe('login with [redacted]');
  });

  it('streams: no delta carries a disguised token whole, and the pieces add up to the scrubbed text', () => {
    const text = `令牌 ${TOKEN.toUpperCase()} 与 ${base64(`:${TOKEN}`)} 与 ${TOKEN.slice(0, 5)}\u200b${TOKEN.slice(5)} 已隐藏。`;
    for (const size of [1, 2, 3, 5, 8, 13]) {
      const stream = scrubber.stream();
      const shown: string[] = [];
      for (let start = 0; start < text.length; start += size) shown.push(stream.push(text.slice(start, start + size)));
      shown.push(stream.flush());
      expect(shown.join('')).toBe(scrubber.scrub(text));
      expect(readingText(readingForm(shown.join("")))).not.toContain(TOKEN);
    }
  });

  it('holds a tail only while it could still grow into a form', () => {
    expect(secrets.tail('token: VAULT-SE')).toBe('VAULT-SE'.length);
    expect(secrets.tail('token: VAULT-SE\u200b')).toBe('VAULT-SE\u200b'.length);
    expect(secrets.tail('nothing here')).toBe(0);
    expect(secrets.tail('50%')).toBe(0);
    expect(secrets.tail('x %7')).toBe(2);
  });
});
