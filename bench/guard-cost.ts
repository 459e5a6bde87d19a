/**
 * `npx tsx bench/guard-cost.ts [--rounds N]`: what the output guard costs per
 * kilobyte of text. A registry of 10 or 100 agents, each with its own bearer
 * token, an endpoint address and an id; texts of 1 KB and 64 KB of mixed
 * Chinese and English prose with a few ids, one token and one address in
 * them. Three uses are timed, as a turn makes them:
 *
 * - clean    the whole text at once (an event's content, the complete final)
 * - stream   the text as 16-character deltas through the answer stream
 * - data     the whole text through the data guard (secrets and addresses only)
 * - composed the text as 16-character pieces through the answer's composition
 *            (agents' texts and the answer read in order, `composition()`)
 *
 * Prints CPU µs per KB of text (median of the rounds), so a guard whose cost grows
 * with the text faster than linearly, or with the number of secrets, shows.
 */
import { pathToFileURL } from 'node:url';
import { createOutputGuard } from '../src/graph/index.js';
import { createSecretGuard } from '../src/privacy/index.js';
import { card, snapshotOf } from '../test/support/registry-fixtures.js';

const PROSE = [
  '已为您预订北京饭店，每晚880元，含早餐。',
  'Your booking number is HB-1042; the driver will wait at the arrivals hall.',
  '明天北京晴，最高8度，最低零下2度，北风三级。',
  'Flight CA1501 leaves Beijing at 08:30 and lands in Shanghai at 10:45.',
  '如需修改订单，请回复“修改”，或联系客服。',
];

function registry(agents: number) {
  return snapshotOf(
    Array.from({ length: agents }, (_unused, index) =>
      card({
        id: `service_${index}_agent`,
        name: `服务${index}`,
        description: `service ${index}`,
        endpoint: {
          url: `http://10.0.${Math.floor(index / 200)}.${index % 200}:${7000 + index}/invoke`,
          protocol: 'http-json',
          timeoutMs: 1000,
          retries: 0,
          headers: { Authorization: `Bearer sk-${index}-${(index * 7919).toString(36)}f3a9c2e${index}` },
        },
      }),
    ),
  );
}

function textOf(bytes: number, agents: number): string {
  let text = '';
  for (let index = 0; Buffer.byteLength(text, 'utf8') < bytes; index += 1) {
    text += PROSE[index % PROSE.length]!;
    if (index % 17 === 3) text += ` service_${index % agents}_agent `;
    if (index % 41 === 9) text += ` sk-${index % agents}-${((index % agents) * 7919).toString(36)}f3a9c2e${index % agents} `;
  }
  return text;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Median CPU ms (user + system: the figure holds on a busy machine) of `work` over the rounds; each round gets a text of its own (nothing can be answered from a cache). */
function time(rounds: number, texts: readonly string[], work: (text: string) => void): number {
  for (let warm = 0; warm < 3; warm += 1) work(texts[rounds]!);
  const figures: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const started = process.cpuUsage();
    work(texts[round]!);
    const used = process.cpuUsage(started);
    figures.push((used.user + used.system) / 1000);
  }
  return median(figures);
}

/** Runs the grid and prints one line per size and registry. */
export function main(rounds = 15): void {
  console.log('guard cost, CPU µs per KB of text (median of %d rounds)', rounds);
  console.log('  secrets  text    clean   stream     data composed');
  for (const agents of [10, 100]) {
    const snapshot = registry(agents);
    const guard = createOutputGuard(snapshot, { inventedIds: false });
    const data = createSecretGuard(snapshot);
    for (const bytes of [1024, 65536]) {
      const base = textOf(bytes, agents);
      const texts = Array.from({ length: rounds + 1 }, (_unused, round) => `${round}: ${base}`);
      const kb = Buffer.byteLength(base, 'utf8') / 1024;
      const perKb = (ms: number) => ((ms * 1000) / kb).toFixed(1).padStart(8);
      const clean = time(rounds, texts, (text) => void guard.clean(text));
      const stream = time(rounds, texts, (text) => {
        const deltas = guard.stream();
        for (let start = 0; start < text.length; start += 16) deltas.push(text.slice(start, start + 16));
        deltas.flush();
      });
      const scrubbed = time(rounds, texts, (text) => void data.scrub(text));
      const composed = time(rounds, texts, (text) => {
        const composition = guard.composition<number>();
        for (let start = 0; start < text.length; start += 16) composition.agentText(text.slice(start, start + 16), start);
        composition.flush();
      });
      console.log(`  ${String(agents).padStart(7)}  ${`${Math.round(kb)}KB`.padEnd(5)} ${perKb(clean)} ${perKb(stream)} ${perKb(scrubbed)} ${perKb(composed)}`);
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const at = process.argv.indexOf('--rounds');
  main(at > 0 ? Number(process.argv[at + 1]) || 15 : 15);
}
