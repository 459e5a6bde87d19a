/**
 * A fake OpenAI-compatible `/v1/embeddings` server for tests: real HTTP on
 * 127.0.0.1. It is a test double of the service, not a model and not a
 * measure of any model: each text's vector is built from a small hand-made
 * concept space, so that words that mean the same thing here ("umbrella",
 * "rain", "下雨") land on the same axis, and a paraphrase and a card example
 * that share no word still come out close. Words outside the table spread
 * over a few hashed "noise" axes, so unrelated texts stay apart.
 *
 * Faults for the fallback tests: answer every request with an error status,
 * or hang, or wait before answering. Every request is recorded.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The hand-made concept table: concept name → words (English words whole, Chinese words by substring). */
export const CONCEPTS: Record<string, readonly string[]> = {
  weather: ['weather', 'umbrella', 'rain', 'raining', 'snow', 'cold', 'hot', 'jacket', 'sunny', 'forecast', 'showers', 'degrees', 'temperature', 'nice out', '天气', '下雨', '伞', '冷', '热', '气温', '下雪'],
  flight: ['flight', 'flights', 'fly', 'plane', 'air', 'airline', 'seats', '航班', '机票', '飞', '早班机'],
  hotel: ['hotel', 'room', 'sleep', 'stay', 'nights', 'five-star', '酒店', '住', '房间', '五星级', '江景'],
  ride: ['car', 'ride', 'taxi', 'driver', 'pick', 'waiting', '接', '车', '司机'],
  order: ['order', 'bought', 'purchase', 'purchases', 'payment', '买', '订单', '付款', '购买'],
  parcel: ['parcel', 'package', 'delivery', 'deliver', 'shipped', 'courier', '快递', '包裹', '送', '物流', '驿站', '发货'],
  refund: ['refund', 'return', 'money', '退', '退款', '不合身'],
  invoice: ['invoice', 'receipt', 'billing', '发票', '开票'],
  product: ['size', 'colour', 'color', 'battery', 'stock', 'last', '码', '尺码', '有货', '颜色', '电池', '电磁炉', '身高', '体重', '穿多大'],
  alarm: ['alarm', 'wake', 'awake', 'buzz', 'dawn', 'get up', '闹钟', '叫醒'],
  reminder: ['remind', 'remember', 'nudge', 'ping', 'forgetting', '提醒'],
  money: ['balance', 'funds', 'account', 'transfer', 'bank', '余额', '转账'],
};

const NOISE_AXES = 32;
const AXES = Object.keys(CONCEPTS);

/** The fake's vector of a text (exported so tests can reason about it). */
export function conceptVector(text: string): number[] {
  const vector = new Array<number>(AXES.length + NOISE_AXES).fill(0);
  const lower = text.toLowerCase();
  const words: string[] = lower.match(/[a-z][a-z'-]*/g) ?? [];
  let known = 0;
  AXES.forEach((axis, index) => {
    for (const term of CONCEPTS[axis]!) {
      const hit = /[a-z]/.test(term) ? (term.includes(' ') ? lower.includes(term) : words.includes(term)) : lower.includes(term);
      if (hit) {
        vector[index]! += 1;
        known += 1;
      }
    }
  });
  // Unknown words: a little weight on a hashed axis each.
  for (const word of words) {
    if (AXES.some((axis) => CONCEPTS[axis]!.includes(word))) continue;
    let hash = 0;
    for (const char of word) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
    vector[AXES.length + (hash % NOISE_AXES)]! += 0.25;
  }
  // Chinese characters no concept word covers: a little weight on a hashed axis each.
  let rest = lower;
  for (const axis of AXES) for (const term of CONCEPTS[axis]!) if (!/[a-z]/.test(term)) rest = rest.split(term).join(' ');
  for (const char of rest.match(/\p{Script=Han}/gu) ?? []) vector[AXES.length + (char.charCodeAt(0) % NOISE_AXES)]! += 0.1;
  if (vector.every((value) => value === 0)) vector[AXES.length]! += 0.25;
  return vector;
}

/** One request as received. */
export interface EmbeddingsRequest {
  model: string;
  input: string[];
  authorization?: string;
}

/** Options of the fake. */
export interface FakeEmbeddingsOptions {
  /** Answer every request with this status. */
  status?: number;
  /** Never answer. */
  hang?: boolean;
  /** Wait before answering. */
  latencyMs?: number;
}

/** A running fake. */
export interface FakeEmbeddingsServer {
  /** Base URL ending in /v1, as `EMBEDDINGS_BASE_URL` takes it. */
  readonly baseUrl: string;
  readonly requests: EmbeddingsRequest[];
  /** Changes the faults of later requests. */
  set(options: FakeEmbeddingsOptions): void;
  close(): Promise<void>;
}

/** Starts the fake on an ephemeral port. */
export async function startFakeEmbeddings(initial: FakeEmbeddingsOptions = {}): Promise<FakeEmbeddingsServer> {
  let options = initial;
  const requests: EmbeddingsRequest[] = [];
  const open = new Set<ServerResponse>();
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/embeddings') {
        response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
        return;
      }
      let body: { model?: unknown; input?: unknown };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
      } catch {
        response.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'body is not JSON' } }));
        return;
      }
      const input = typeof body.input === 'string' ? [body.input] : Array.isArray(body.input) ? body.input.map(String) : [];
      requests.push({ model: String(body.model ?? ''), input, ...(request.headers.authorization ? { authorization: request.headers.authorization } : {}) });
      if (options.hang) {
        open.add(response);
        return;
      }
      const answer = () => {
        if (options.status) {
          response.writeHead(options.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'scripted failure' } }));
          return;
        }
        const data = input.map((text, index) => ({ object: 'embedding', index, embedding: conceptVector(text) }));
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data, model: body.model, usage: { prompt_tokens: input.length, total_tokens: input.length } }));
      };
      if (options.latencyMs) setTimeout(answer, options.latencyMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    set(next) {
      options = next;
    },
    async close() {
      for (const response of open) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
