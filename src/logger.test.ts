import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';
import { createPiiMasking } from './privacy/index.js';

describe('createLogger with a masker', () => {
  it('masks personal data in the merged object, nested values, errors and the message', () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'info',
      masker: createPiiMasking(),
      destination: new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(chunk.toString('utf8')), done()) }),
    });
    logger.info({ query: '手机 13812345678', nested: { emails: ['zhang.san@example.com'] } }, 'user 11010519491231002X called');
    logger.warn({ err: new Error('card 6222021234567890128 declined') }, 'failed');
    const text = lines.join('');
    for (const raw of ['13812345678', 'zhang.san@example.com', '11010519491231002X', '6222021234567890128']) expect(text).not.toContain(raw);
    expect(text).toContain('138****5678');
    expect(text).toContain('zh***@example.com');
  });
});
