/**
 * Which texts of a header value are secrets, so user-facing text and other
 * agents' requests can be cleaned of them without hiding ordinary words.
 *
 * The whole value is always a secret ("Bearer sk-live-123456"). So is the
 * credential after a leading auth scheme ("sk-live-123456": an agent may echo
 * the token alone), whatever its shape. When the credential is made of several
 * parts ("id=ab12cd34ef, sig=Zx9…"), each opaque part is a secret of its own:
 * at least 8 characters with a digit, a symbol or mixed case. The scheme word
 * itself ("Bearer", "Basic", "Token") and ordinary words are not secrets: they
 * stay readable wherever they occur in an answer.
 */

/** Auth schemes a header value may start with (HTTP Authentication Scheme Registry and common API-key forms). */
const SCHEMES = 'bearer|basic|token|apikey|api-key|api_key|key|digest|negotiate|ntlm|hoba|mutual|dpop|mac|sso-key|aws4-hmac-sha256';
const AUTH_SCHEME = new RegExp(`^(?:${SCHEMES})\\s+`, 'i');
const SCHEME_ONLY = new RegExp(`^(?:${SCHEMES})$`, 'i');

/** Shortest text taken as a secret. */
const MIN_SECRET_LENGTH = 4;
/** Shortest part of a multi-part credential taken as a secret on its own. */
const MIN_PART_LENGTH = 8;

/** The secret texts of one header value: the value, its credential and the credential's opaque parts (longest first, no duplicates). */
export function credentialParts(value: string): string[] {
  const whole = typeof value === 'string' ? value.trim() : '';
  const found = new Set<string>();
  // A value that is only a scheme word ("Bearer" with an empty variable) holds no secret.
  if (whole.length >= MIN_SECRET_LENGTH && !SCHEME_ONLY.test(whole)) found.add(whole);
  const credential = SCHEME_ONLY.test(whole) ? '' : whole.replace(AUTH_SCHEME, '').trim();
  if (credential.length >= MIN_SECRET_LENGTH) found.add(credential);
  const parts = credential.split(/[\s,;]+/).filter((part) => part.length > 0);
  if (parts.length > 1) {
    for (const part of parts) {
      // `name=value` pairs (Digest, AWS, signed headers): the value is the secret; quotes are not part of it.
      const pair = /^[A-Za-z][\w-]*="?([^"=][^"]*)"?$/.exec(part);
      const candidate = pair ? pair[1]! : part;
      if (isOpaque(candidate)) found.add(candidate);
    }
  }
  return [...found].sort((left, right) => right.length - left.length);
}

/** A token no one writes as a word: long enough, with a digit, a symbol or mixed case (`sk-live-1`, `dXNlcjpw`, `aBcDeFgH`). */
export function isOpaque(text: string): boolean {
  if (text.length < MIN_PART_LENGTH) return false;
  if (/\d/.test(text) || /[^\p{L}\p{M}]/u.test(text)) return true;
  // Mixed case beyond a capital first letter ("Production" is a word, "prodKey" is not).
  return /\p{Ll}/u.test(text) && /\p{Lu}/u.test(text.slice(1));
}
