import { describe, expect, it } from 'vitest';
import { credentialParts, isOpaque } from './credential-parts.js';
import { createTextScrubber, secretTerms } from './id-scrubber.js';

describe('credentialParts', () => {
  it('takes the whole value and the credential after the auth scheme, never the scheme word', () => {
    expect(credentialParts('Bearer sk-live-123456')).toEqual(['Bearer sk-live-123456', 'sk-live-123456']);
    expect(credentialParts('basic dXNlcjpwYXNz')).toEqual(['basic dXNlcjpwYXNz', 'dXNlcjpwYXNz']);
    expect(credentialParts('Token abcdefgh')).toEqual(['Token abcdefgh', 'abcdefgh']);
    expect(credentialParts('ApiKey k1')).toEqual(['ApiKey k1']);
    expect(credentialParts('Bearer ')).toEqual([]);
  });

  it('keeps a value without a scheme whole, whatever its shape', () => {
    expect(credentialParts('production')).toEqual(['production']);
    expect(credentialParts('abc')).toEqual([]);
  });

  it('takes each opaque part of a multi-part credential, and no ordinary word', () => {
    const parts = credentialParts('Digest username="Service", realm="Partners", nonce="9f2c8e1a77", response="Ab3dE6gh9k"');
    expect(parts).toContain('9f2c8e1a77');
    expect(parts).toContain('Ab3dE6gh9k');
    expect(parts).not.toContain('username="Service"');
    expect(parts).not.toContain('Service');
    expect(parts).not.toContain('Partners');
    expect(credentialParts('Basic dXNlcjpwYXNz==, key="Ab3dE6gh9k"')).toEqual(['Basic dXNlcjpwYXNz==, key="Ab3dE6gh9k"', 'dXNlcjpwYXNz==, key="Ab3dE6gh9k"', 'dXNlcjpwYXNz==', 'Ab3dE6gh9k']);
    expect(credentialParts('Bearer token for Production plus X7k2mP9qR4')).toEqual(['Bearer token for Production plus X7k2mP9qR4', 'token for Production plus X7k2mP9qR4', 'X7k2mP9qR4']);
  });

  it('calls opaque only long tokens with a digit, a symbol or mixed case', () => {
    for (const token of ['sk-live-1', 'abcd1234', 'dXNlcjpw', 'prodKeyAbc']) expect(isOpaque(token), token).toBe(true);
    for (const word of ['Bearer', 'Authorization', 'PRODUCTION', 'password', 'a1b2c3']) expect(isOpaque(word), word).toBe(false);
  });
});

describe('secretTerms', () => {
  it('redacts the value and its credential but shows the scheme word anywhere', () => {
    const { scrub } = createTextScrubber({ terms: secretTerms(['Bearer sk-live-123456']) });
    expect(scrub('Use a Bearer token: Bearer sk-live-123456, or sk-live-123456 alone. BEARER bearer')).toBe(
      'Use a Bearer token: [redacted], or [redacted] alone. BEARER bearer',
    );
  });
});
