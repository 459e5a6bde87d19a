/**
 * What a sub-agent failure may say to users. Reasons reach the SSE stream and
 * the transcript, so they must never name an address, a port or a header
 * value: an agent's own failure message or a network error text could carry
 * any of these (an internal host, a token echoed back). The full text stays in
 * the logs only.
 */
import { createTextScrubber, secretTerms } from '../text/index.js';

const REPLACEMENT = 'the agent';

/** Addresses in free text: URLs, IPv4 / IPv6 literals, host:port and bare internal host names. */
const ADDRESS_PATTERNS: readonly RegExp[] = [
  /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi,
  /\[[0-9a-f:.%]+\](?::\d{1,5})?/gi,
  /(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?(?:\/[^\s"'<>]*)?/g,
  /(?<![\w:])(?:[0-9a-f]{1,4}:){3,7}[0-9a-f]{1,4}(?:%\w+)?(?![\w:])/gi,
  /(?<![\w:])[0-9a-f]{0,4}(?::[0-9a-f]{1,4})*::(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4})*)?(?:%\w+)?(?![\w:])/gi,
  /(?<![\w.-])(?:[a-z0-9-]+\.)*[a-z][a-z0-9-]*:\d{1,5}(?:\/[^\s"'<>]*)?/gi,
  /\blocalhost\b/gi,
];

/** Replaces every header value (and its credential and opaque parts, `text/credential-parts.ts`) found in `text` with `[redacted]`. */
export function redactSecrets(text: string, headerValues: Iterable<string>): string {
  return createTextScrubber({ terms: secretTerms(headerValues) }).scrub(text);
}

/** Replaces addresses (URLs, IPs, host:port) in `text` with a neutral word. */
export function scrubAddresses(text: string): string {
  let result = text;
  for (const pattern of ADDRESS_PATTERNS) result = result.replace(pattern, REPLACEMENT);
  return result;
}

/** The user-safe form of a failure reason: header values redacted, then addresses removed. */
export function publicFailureReason(detail: string, headerValues: Iterable<string>): string {
  return scrubAddresses(redactSecrets(detail, headerValues));
}
