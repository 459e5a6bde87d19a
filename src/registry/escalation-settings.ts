/**
 * `supervisor.escalation` with defaults. The webhook url's `${VAR}`s are
 * resolved like endpoint urls; the message of a problem shows the template,
 * never the resolved value (it may carry a token). The url follows the
 * endpoint rules of sub-agents: one pointing at a link-local, metadata or
 * unique-local address is refused unless private endpoints are allowed.
 */
import type { PrivateAddressCheck } from './private-address.js';
import { SUPERVISOR_DEFAULTS } from './defaults.js';
import { interpolateEnv } from './env-interpolation.js';
import type { Findings } from './findings.js';
import type { RawConfig } from './raw-config.js';
import type { ConfigIssue, EscalationSettings } from './types.js';
import type { YamlSource } from './yaml-source.js';

const POINTER = '/supervisor/escalation/webhook_url';

/** Builds the settings; an unset variable or a non-http(s) url is an issue. */
export function escalationSettings(
  raw: NonNullable<RawConfig['supervisor']>['escalation'],
  source: YamlSource,
  env: Readonly<Record<string, string | undefined>>,
  /** The check of endpoint urls; undefined with `supervisor.allow_private_endpoints: true`. */
  privateAddressProblem?: PrivateAddressCheck,
): Findings & { value: EscalationSettings } {
  const defaults = SUPERVISOR_DEFAULTS.escalation;
  const value: EscalationSettings = {
    emotionWords: [...(raw?.emotion_words ?? [])],
    emotionThreshold: raw?.emotion_threshold ?? defaults.emotionThreshold,
  };
  const issues: ConfigIssue[] = [];
  const done = () => ({ value, issues, warnings: [] });
  if (raw?.webhook_url === undefined) return done();
  const result = interpolateEnv(raw.webhook_url, env);
  if (!result.ok) {
    if (result.malformed !== undefined) {
      issues.push(source.issueAt(POINTER, `malformed variable reference ${result.malformed} in the escalation webhook url: use \${NAME} or \${NAME:-default}`));
    }
    for (const name of result.missing) issues.push(source.issueAt(POINTER, `environment variable ${name} is not set (used in the escalation webhook url)`));
    return done();
  }
  // An empty value (`${TICKET_WEBHOOK_URL:-}`) switches the webhook off.
  if (result.value === '') return done();
  let parsed: URL | undefined;
  try {
    parsed = new URL(result.value);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    issues.push(source.issueAt(POINTER, `escalation webhook url ${JSON.stringify(raw.webhook_url)} is not an absolute http(s) URL`));
    return done();
  }
  const privateProblem = privateAddressProblem?.(parsed);
  if (privateProblem !== undefined) {
    issues.push(source.issueAt(POINTER, `escalation webhook url ${JSON.stringify(raw.webhook_url)} points at ${privateProblem}; set supervisor.allow_private_endpoints: true if this is intended`));
    return done();
  }
  return { value: { ...value, webhookUrl: result.value }, issues, warnings: [] };
}
