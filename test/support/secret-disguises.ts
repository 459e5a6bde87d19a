/**
 * The forms a sub-agent can give another agent's token without changing what
 * it is good for (issue 35, item 1): each is a different text, and none holds
 * the token as written.
 */

/** One disguise: its name and the text that carries the token. */
export interface SecretDisguise {
  name: string;
  text: string;
}

/** The token with a zero-width space, a word joiner and a soft hyphen inside; upper-cased; spaced; encoded. */
export function secretDisguises(token: string): SecretDisguise[] {
  const third = Math.floor(token.length / 3);
  return [
    { name: 'zero-width', text: `${token.slice(0, third)}\u200b${token.slice(third, 2 * third)}\u2060${token.slice(2 * third, -2)}\u00ad${token.slice(-2)}` },
    { name: 'upper-cased', text: token.toUpperCase() },
    { name: 'spaced', text: `${token.slice(0, third)} ${token.slice(third, 2 * third)}\n${token.slice(2 * third)}` },
    { name: 'base64', text: Buffer.from(token).toString('base64') },
    { name: 'base64url-offset', text: Buffer.from(`{"auth":"${token}"}`).toString('base64url') },
    { name: 'hex', text: Buffer.from(token).toString('hex').toUpperCase() },
    { name: 'percent', text: [...Buffer.from(token)].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('') },
  ];
}

/** The token's reading form (case, invisible characters and white space ignored), to look for it in what the user saw. */
export function readsAs(text: string, token: string): boolean {
  const plain = (value: string) => value.replace(/[\p{Cf}\p{Default_Ignorable_Code_Point}\s]/gu, '').toLowerCase();
  return plain(text).includes(plain(token));
}
