/**
 * An open-loop client for overload runs: turns are sent at a fixed rate
 * whatever the answers' pace, over keep-alive connections, and each answer is
 * classified — admitted (200 with a `done` event), refused (503 OVERLOADED),
 * another HTTP answer, or a failed connection (reset, hang-up, refused) —
 * while /healthz and /readyz are probed every 100 ms.
 */
import { Agent, request } from 'node:http';

/** What an open-loop run saw. */
export interface OpenLoopFigures {
  offered: number;
  admitted: number;
  refused: number;
  refusedWithoutRetryAfter: number;
  otherHttp: number;
  otherSample?: string;
  failed: number;
  failedSample?: string;
  admittedP50Ms: number;
  admittedP99Ms: number;
  admittedMaxMs: number;
  refusedP99Ms: number;
  healthProbes: number;
  healthFailures: number;
  healthP99Ms: number;
  readyProbes: number;
  readySaturated: number;
  /** One saturated /readyz body. */
  readySample?: string;
}

type Answer = { kind: 'admitted' | 'refused' | 'other' | 'failed'; ms: number; detail?: string; retryAfter?: boolean };

/** The p-th percentile (0..1) of the values, rounded to 1 ms; 0 when there are none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!);
}

function sendOne(agent: Agent, baseUrl: string, path: string, body: string, dueAt: number): Promise<Answer> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (answer: Omit<Answer, 'ms'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...answer, ms: performance.now() - dueAt });
    };
    const outgoing = request(
      `${baseUrl}${path}`,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'content-length': Buffer.byteLength(body) } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          // Only the tail matters (the done event); keep memory flat under thousands of turns.
          text = (text + chunk).slice(-4096);
        });
        response.on('end', () => {
          if (response.statusCode === 200 && text.includes('"stage":"done"')) settle({ kind: 'admitted' });
          else if (response.statusCode === 503 && text.includes('"OVERLOADED"')) settle({ kind: 'refused', retryAfter: Number(response.headers['retry-after']) >= 1 });
          else settle({ kind: 'other', detail: `http ${response.statusCode}: ${text.slice(0, 160)}` });
        });
        response.on('error', (error: NodeJS.ErrnoException) => settle({ kind: 'failed', detail: `${error.code ?? ''} ${error.message}` }));
        response.on('aborted', () => settle({ kind: 'failed', detail: 'response aborted' }));
      },
    );
    outgoing.on('error', (error: NodeJS.ErrnoException) => settle({ kind: 'failed', detail: `${error.code ?? ''} ${error.message}` }));
    outgoing.end(body);
  });
}

function startProbes(baseUrl: string) {
  const health: number[] = [];
  let healthFailures = 0;
  let readyProbes = 0;
  let readySaturated = 0;
  let readySample: string | undefined;
  let running = true;
  const probe = async () => {
    while (running) {
      const started = performance.now();
      try {
        const response = await fetch(`${baseUrl}/healthz`);
        await response.text();
        if (response.status !== 200) healthFailures += 1;
      } catch {
        healthFailures += 1;
      }
      health.push(performance.now() - started);
      try {
        const ready = await fetch(`${baseUrl}/readyz`);
        const text = await ready.text();
        readyProbes += 1;
        if (ready.status === 503 && text.includes('saturated')) {
          readySaturated += 1;
          readySample ??= text;
        }
      } catch {
        readyProbes += 1;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const done = probe();
  return {
    async stop() {
      running = false;
      await done;
      return { healthProbes: health.length, healthFailures, healthP99Ms: percentile(health, 0.99), readyProbes, readySaturated, readySample };
    },
  };
}

/** Offers `rate` turns/s for `seconds` to `/v1/chat` and classifies every answer. */
export async function openLoop(baseUrl: string, options: { rate: number; seconds: number; query: string; sessionPrefix: string; path?: string }): Promise<OpenLoopFigures> {
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const probes = startProbes(baseUrl);
  const total = Math.round(options.rate * options.seconds);
  const interval = 1000 / options.rate;
  const start = performance.now();
  const pending: Promise<Answer>[] = [];
  for (let index = 0; index < total; index += 1) {
    const dueAt = start + index * interval;
    const wait = dueAt - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    const body = JSON.stringify({ query: options.query, user_id: `ol-u${index % 50}`, session_id: `${options.sessionPrefix}-${index}` });
    pending.push(sendOne(agent, baseUrl, options.path ?? '/v1/chat', body, dueAt));
  }
  const answers = await Promise.all(pending);
  const probeFigures = await probes.stop();
  agent.destroy();
  const of = (kind: Answer['kind']) => answers.filter((answer) => answer.kind === kind);
  const admitted = of('admitted').map((answer) => answer.ms);
  const refused = of('refused');
  return {
    offered: total,
    admitted: admitted.length,
    refused: refused.length,
    refusedWithoutRetryAfter: refused.filter((answer) => !answer.retryAfter).length,
    otherHttp: of('other').length,
    otherSample: of('other')[0]?.detail,
    failed: of('failed').length,
    failedSample: of('failed')[0]?.detail,
    admittedP50Ms: percentile(admitted, 0.5),
    admittedP99Ms: percentile(admitted, 0.99),
    admittedMaxMs: Math.round(Math.max(0, ...admitted)),
    refusedP99Ms: percentile(refused.map((answer) => answer.ms), 0.99),
    ...probeFigures,
  };
}
