/**
 * Resolves one agent's `endpoint`: `${VAR}` references in the URL and header
 * values, an absolute http(s) URL, header values without line breaks, and the
 * defaults for what the file leaves out.
 */
import { ENDPOINT_DEFAULTS, mergeCircuitBreaker } from './defaults.js';
import { interpolateEnv } from './env-interpolation.js';
import type { PrivateAddressCheck } from './private-address.js';
import type { Checked } from './findings.js';
import type { RawAgent } from './raw-config.js';
import type { AgentEndpoint, CircuitBreakerSettings, ConfigIssue } from './types.js';
import type { YamlSource } from './yaml-source.js';

/** What resolving an endpoint reads besides the agent entry. */
export interface EndpointContext {
  source: YamlSource;
  env: Readonly<Record<string, string | undefined>>;
  /** `supervisor.default_timeout_ms` (or its default). */
  defaultTimeoutMs: number;
  /** `supervisor.max_connections_per_agent` (or its default). */
  defaultMaxConnections: number;
  /** `supervisor.allow_private_endpoints`: link-local / metadata / unique-local urls allowed. */
  allowPrivateEndpoints: boolean;
  /** `supervisor.circuit_breaker` over the defaults: what the endpoint's own block is laid over. */
  circuitBreaker: CircuitBreakerSettings;
  /** Judges link-local / metadata / unique-local urls (used unless they are allowed). */
  privateAddressProblem: PrivateAddressCheck;
  /** JSON pointer of a path under this agent's entry. */
  at: (...segments: (string | number)[]) => string;
}

/** The resolved endpoint, or every issue that stops it resolving. */
export function buildEndpoint(agent: RawAgent, context: EndpointContext): Checked<AgentEndpoint> {
  const { source, env, at } = context;
  const issues: ConfigIssue[] = [];
  const failed = (): Checked<AgentEndpoint> => ({ value: undefined, issues, warnings: [] });
  let resolved = true;
  const resolve = (template: string, pointer: string, what: string): string | undefined => {
    const result = interpolateEnv(template, env);
    if (result.ok) return result.value;
    resolved = false;
    if (result.malformed !== undefined) {
      issues.push(source.issueAt(pointer, `malformed variable reference ${result.malformed} in ${what}: use \${NAME} or \${NAME:-default}`));
    }
    for (const name of result.missing) {
      issues.push(source.issueAt(pointer, `environment variable ${name} is not set (used in ${what}; set it or write \${${name}:-default})`));
    }
    return undefined;
  };

  const urlTemplate = agent.endpoint.url;
  const url = resolve(urlTemplate, at('endpoint', 'url'), `agent "${agent.id}" endpoint url`);
  if (url !== undefined) {
    // The message shows the template as written, never the resolved value.
    const problem = urlProblem(url, urlTemplate, context.allowPrivateEndpoints ? undefined : context.privateAddressProblem);
    if (problem !== undefined) issues.push(source.issueAt(at('endpoint', 'url'), problem));
  }

  const headers: Record<string, string> = {};
  for (const [name, template] of Object.entries(agent.endpoint.headers ?? {})) {
    const pointer = at('endpoint', 'headers', name);
    const value = resolve(template, pointer, `header ${name} of agent "${agent.id}"`);
    if (value === undefined) continue;
    if (/[\r\n\0]/.test(value)) {
      issues.push(source.issueAt(pointer, `header ${name} resolves to a value containing a line break or NUL`));
      continue;
    }
    headers[name] = value;
  }

  if (!resolved || url === undefined || issues.length > 0) return failed();
  return {
    value: {
      url,
      protocol: agent.endpoint.protocol ?? ENDPOINT_DEFAULTS.protocol,
      timeoutMs: agent.endpoint.timeout_ms ?? context.defaultTimeoutMs,
      retries: agent.endpoint.retries ?? ENDPOINT_DEFAULTS.retries,
      maxConnections: agent.endpoint.max_connections ?? context.defaultMaxConnections,
      headers,
      ...(context.allowPrivateEndpoints ? { allowPrivateAddresses: true } : {}),
      circuitBreaker: mergeCircuitBreaker(context.circuitBreaker, agent.endpoint.circuit_breaker),
    },
    issues,
    warnings: [],
  };
}

/** Why a resolved URL is unusable, or undefined when it is fine. */
function urlProblem(url: string, template: string, privateAddressProblem: PrivateAddressCheck | undefined): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `endpoint url ${JSON.stringify(template)} is not a valid absolute URL`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return `endpoint url must use http or https, not ${parsed.protocol.replace(/:$/, '')}`;
  }
  const privateProblem = privateAddressProblem?.(parsed);
  if (privateProblem !== undefined) {
    return `endpoint url ${JSON.stringify(template)} points at ${privateProblem}; set supervisor.allow_private_endpoints: true if this is intended`;
  }
  return undefined;
}
