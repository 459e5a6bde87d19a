/**
 * Registries built to hurt the server while staying under the file-size and
 * node-count caps: one long example string written once and aliased many
 * times, so the file is small but its data is huge.
 */

/** A registry of one agent whose examples are `copies` aliases of one `exampleBytes`-long string. */
export function aliasedExampleRegistry(url: string, options: { exampleBytes?: number; copies?: number } = {}): string {
  const exampleBytes = options.exampleBytes ?? 1_240_000;
  const copies = options.copies ?? 1000;
  const example = 'a'.repeat(exampleBytes);
  return `${plainRegistry(url)}    examples:
      - &big "${example}"
${Array.from({ length: copies }, () => '      - *big').join('\n')}
`;
}

/** The same agent without the aliased examples (a good edit). */
export function plainRegistry(url: string): string {
  return `version: 1
agents:
  - id: echo_agent
    name: 回声服务
    description: 回声 echo
    keywords: [回声, echo]
    endpoint: { url: "${url}", retries: 0 }
`;
}

/** The bearer token of {@link splitSecretRegistry}'s vault agent (the value its `VAULT_TOKEN` is given). */
export const SPLIT_SECRET_TOKEN = 'vault-secret-4c1e9b7a2d';

/**
 * Three agents for the split-secret cases: a leaky and a chatty SSE agent, and
 * a vault agent whose `Authorization` header holds `\${VAULT_TOKEN}`.
 */
export function splitSecretRegistry(leaky: string, vault: string, chatty: string): string {
  return `version: 1
agents:
  - id: leaky_agent
    name: 报表服务
    description: 生成报表 build a report
    keywords: [报表, report]
    endpoint: { url: "${leaky}", protocol: http-sse, retries: 0, timeout_ms: 10000 }
  - id: vault_agent
    name: 保险箱
    description: 保管钥匙 keep the keys
    keywords: [保险箱, vault]
    endpoint:
      url: "${vault}"
      retries: 0
      headers:
        Authorization: "Bearer \${VAULT_TOKEN}"
  - id: chatty_agent
    name: 天气服务
    description: 天气 weather
    keywords: [天气, weather]
    endpoint: { url: "${chatty}", protocol: http-sse, retries: 0, timeout_ms: 10000 }
`;
}

/** Calls `GET /healthz` every `intervalMs` until stopped; the latencies (ms) of each probe, failures as Infinity. */
export function startHealthProbe(baseUrl: string, intervalMs = 20): { stop(): Promise<number[]> } {
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      try {
        const response = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(10_000) });
        await response.arrayBuffer();
        latencies.push(response.ok ? performance.now() - started : Infinity);
      } catch {
        latencies.push(Infinity);
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return latencies;
    },
  };
}

/** The `fraction` quantile of `values` (nearest rank). */
export function quantile(values: readonly number[], fraction: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}
