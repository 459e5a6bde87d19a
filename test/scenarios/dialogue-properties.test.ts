/**
 * A property test that looks for what nobody wrote down: random dialogues
 * from a grammar over the sample registries (requests with and without their
 * values, several requests in one message, corrections — bare, riding on a yes
 * or no word, inside the confirmation — answers, confirmations, cancels,
 * expiry; Chinese and English) run through the real supervisor turn against
 * recording stubs (offline), and after every turn:
 *
 * 1. every value any agent received has a source in the session: the user
 *    said it in some turn (a date: a date expression of some turn), or it is
 *    an upstream task's output (the stubs' outputs);
 * 2. no side-effect agent ran but on a yes word right after a turn that held
 *    it, with exactly the values that turn showed for confirmation;
 * 3. a cancel or no word runs nothing, and after the parked time has passed a
 *    yes word or a bare answer brings nothing back.
 *
 * Fixed seed, bounded runs; on failure fast-check prints the seed and the
 * shrunk dialogue, and the test prints the seed too.
 */
import fc from 'fast-check';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DialogueCase } from '../../src/eval/dialogue-set.js';
import { openDialogueRunner, type DialogueRunner, type TurnObservation } from '../../src/cli/run-dialogues.js';
import { classifyReplyWord } from '../../src/understanding/index.js';
import { findDates } from '../../src/text/date-extractor.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SEED = Number(process.env.DIALOGUE_SEED ?? 20261122);
const RUNS = Number(process.env.DIALOGUE_RUNS ?? 30);
const TODAY = '2026-11-22';
const TODAY_DATE = new Date(2026, 10, 22, 10, 0, 0);
/** Past the sample registries' pending_ttl_s (600 s). */
const EXPIRE_S = 700;

type Kind = 'request' | 'correction' | 'confirm' | 'cancel' | 'no' | 'answer' | 'other';
interface GenTurn {
  user: string;
  kind: Kind;
  waitS: number;
}

const pick = <T,>(values: readonly T[]) => fc.constantFrom(...values);
const fill = (template: string, parts: Record<string, fc.Arbitrary<string>>) =>
  fc.record(parts).map((values) => template.replace(/\{(\w+)\}/g, (_whole, name: string) => values[name] ?? ''));

/** The travel registry's grammar (hotel and airport pickup are side effects). */
function travelTurns(): fc.Arbitrary<{ user: string; kind: Kind }> {
  const city = pick(['北京', '上海', '广州', '深圳', '杭州']);
  const cityEn = pick(['Beijing', 'Shanghai', 'Guangzhou']);
  const date = pick(['明天', '后天']);
  const requestZh = fc.oneof(
    fill('帮我订{city}的酒店，{date}入住', { city, date }),
    fill('帮我订{city}的酒店', { city }),
    fill('帮我订酒店，{date}入住', { date }),
    fc.constant('帮我订酒店'),
    fill('{city}{date}天气怎么样', { city, date }),
    fill('{date}天气怎么样', { date }),
    fill('查一下{date}从{from}到{to}的机票', { date, from: city, to: city }),
    fill('帮我订{date}早上7点首都机场的接机', { date }),
  );
  const requestEn = fc.oneof(
    fill('book a hotel in {city} for tomorrow', { city: cityEn }),
    fill('I need a hotel in {city}', { city: cityEn }),
    fill("what's the weather in {city} tomorrow", { city: cityEn }),
    fc.constant("what's the weather tomorrow"),
  );
  return fc.oneof(
    { weight: 4, arbitrary: requestZh.map((user) => ({ user, kind: 'request' as Kind })) },
    { weight: 2, arbitrary: requestEn.map((user) => ({ user, kind: 'request' as Kind })) },
    { weight: 2, arbitrary: fc.tuple(requestZh, requestZh).map(([first, second]) => ({ user: `${first}，再${second}`, kind: 'request' as Kind })) },
    { weight: 1, arbitrary: fc.tuple(requestEn, requestEn).map(([first, second]) => ({ user: `${first} and ${second}`, kind: 'request' as Kind })) },
    {
      weight: 3,
      arbitrary: fc
        .oneof(fill('改成{city}', { city }), fill('好的，不过改成{city}', { city }), fill('不对，改成{city}', { city }), fc.constant('确认，不过日期改成后天'), fill('actually, make it {city}', { city: cityEn }))
        .map((user) => ({ user, kind: 'correction' as Kind })),
    },
    { weight: 4, arbitrary: pick(['确认', '好的', 'yes']).map((user) => ({ user, kind: 'confirm' as Kind })) },
    { weight: 2, arbitrary: pick(['取消', '算了', 'cancel']).map((user) => ({ user, kind: 'cancel' as Kind })) },
    { weight: 1, arbitrary: pick(['不要', 'no']).map((user) => ({ user, kind: 'no' as Kind })) },
    { weight: 2, arbitrary: fc.oneof(city, date, cityEn).map((user) => ({ user, kind: 'answer' as Kind })) },
    { weight: 1, arbitrary: pick(['你好', '今天股票怎么样']).map((user) => ({ user, kind: 'other' as Kind })) },
  );
}

/** The e-commerce registry's grammar (refunds are side effects). */
function ecommerceTurns(): fc.Arbitrary<{ user: string; kind: Kind }> {
  const id = pick(['A1001', 'B2002', 'C3003']);
  const reason = pick(['质量问题', '发错货', '七天无理由']);
  const request = fc.oneof(
    fill('我要退款，订单 {id}，原因是{reason}', { id, reason }),
    fill('我要退款，订单 {id}', { id }),
    fill('帮我查一下订单 {id} 的状态', { id }),
    fill('订单 {id} 的物流到哪了', { id }),
    fc.constant('帮我查一下订单的状态'),
    fill('I want a refund for order {id}, wrong item', { id }),
    fill('check my order {id}', { id }),
  );
  return fc.oneof(
    { weight: 5, arbitrary: request.map((user) => ({ user, kind: 'request' as Kind })) },
    { weight: 1, arbitrary: fc.tuple(request, request).map(([first, second]) => ({ user: `${first}，再${second}`, kind: 'request' as Kind })) },
    {
      weight: 3,
      arbitrary: fc
        .oneof(fill('不对，订单号是 {id}', { id }), fill('原因改成{reason}', { reason }), fill('确认，不过订单号改成 {id}', { id }))
        .map((user) => ({ user, kind: 'correction' as Kind })),
    },
    { weight: 4, arbitrary: pick(['确认', 'yes']).map((user) => ({ user, kind: 'confirm' as Kind })) },
    { weight: 2, arbitrary: pick(['算了', 'never mind']).map((user) => ({ user, kind: 'cancel' as Kind })) },
    { weight: 2, arbitrary: fc.oneof(id, reason).map((user) => ({ user, kind: 'answer' as Kind })) },
  );
}

/** 1–3 pieces, each a turn or a turn followed by a yes (so held side effects often get their answer); every turn may come after the parked time ran out. */
function dialogueOf(turn: fc.Arbitrary<{ user: string; kind: Kind }>): fc.Arbitrary<GenTurn[]> {
  const yes = pick(['确认', 'yes']).map((user) => ({ user, kind: 'confirm' as Kind }));
  const piece = fc.oneof({ weight: 2, arbitrary: turn.map((one) => [one]) }, { weight: 3, arbitrary: fc.tuple(turn, yes) });
  return fc
    .array(piece, { minLength: 1, maxLength: 3 })
    .chain((pieces) => {
      const flat = pieces.flat();
      return fc.array(fc.nat(7), { minLength: flat.length, maxLength: flat.length }).map((expiries) =>
        flat.map((generated, index) => ({ ...generated, waitS: index > 0 && expiries[index] === 0 ? EXPIRE_S : 0 })),
      );
    });
}

const normal = (text: string) => text.normalize('NFKC').toLowerCase();

/** Values a stub sends upstream (stub-agents.ts `sampleOf`). */
const isStubOutput = (value: unknown) => (typeof value === 'string' && (/^stub-\d+$/.test(value) || value === '2026-01-01' || value === 'stub@example.com')) || value === 1 || value === true;

/** The invariants after turn `index`; returns what is violated. */
function violations(turns: readonly GenTurn[], observed: readonly TurnObservation[], index: number, sideEffects: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  const said = turns.slice(0, index + 1).map((turn) => normal(turn.user));
  const dates = new Set(turns.slice(0, index + 1).flatMap((turn) => findDates(turn.user, TODAY_DATE).flatMap((hit) => (hit.value ? [hit.value] : []))));
  const turn = turns[index]!;
  const now = observed[index]!;
  for (const call of now.calls) {
    for (const [key, value] of Object.entries(call.inputs)) {
      if (value === undefined || value === null || value === '') continue;
      const text = normal(String(value));
      const sourced = said.some((line) => line.includes(text)) || dates.has(String(value)) || isStubOutput(value);
      if (!sourced) problems.push(`turn ${index + 1}: ${call.agentId}.${key} = ${JSON.stringify(value)} has no source in the session`);
    }
    if (sideEffects.has(call.agentId)) {
      const shown = index > 0 ? observed[index - 1]!.confirmations.filter((request) => request.agentId === call.agentId) : [];
      if (classifyReplyWord(turn.user) !== 'yes') problems.push(`turn ${index + 1}: side effect ${call.agentId} ran on "${turn.user}", not on a yes word`);
      const exact = shown.some((request) => {
        const keys = new Set([...Object.keys(request.inputs), ...Object.keys(call.inputs)]);
        return [...keys].every((key) => String(request.inputs[key] ?? '') === String(call.inputs[key] ?? ''));
      });
      if (!exact) problems.push(`turn ${index + 1}: side effect ${call.agentId} ran with ${JSON.stringify(call.inputs)}, not exactly the values held for confirmation ${JSON.stringify(shown.map((request) => request.inputs))}`);
    }
  }
  if ((turn.kind === 'cancel' || turn.kind === 'no') && now.calls.length > 0) problems.push(`turn ${index + 1}: "${turn.user}" ran ${now.calls.map((call) => call.agentId).join(', ')}`);
  if (turn.waitS >= EXPIRE_S && (turn.kind === 'confirm' || turn.kind === 'answer') && now.calls.length > 0) {
    problems.push(`turn ${index + 1}: after expiry, "${turn.user}" brought back ${now.calls.map((call) => call.agentId).join(', ')}`);
  }
  return problems;
}

describe.each([
  ['travel', 'agents_config.yaml', travelTurns, new Set(['hotel_agent', 'limo_agent'])],
  ['e-commerce', 'examples/ecommerce/agents_config.yaml', ecommerceTurns, new Set(['refund_agent'])],
] as const)('dialogue properties on the %s registry (offline)', (name, config, grammar, sideEffects) => {
  let runner: DialogueRunner;
  let line = 0;
  /** What the runs exercised (a property that never saw a side effect run would prove nothing). */
  const seen = { calls: 0, sideEffectCalls: 0, held: 0, expired: 0 };
  beforeAll(async () => {
    runner = await openDialogueRunner({ configPath: `${ROOT}${config}`, env: {} });
  });
  afterAll(async () => {
    await runner?.close();
  });

  it(`every value has a source, side effects run only on a yes to exactly the values shown, cancelled or expired tasks never run (seed ${SEED}, ${RUNS} dialogues)`, async () => {
    try {
      await fc.assert(
        fc.asyncProperty(dialogueOf(grammar()), async (turns) => {
          line += 1;
          const dialogue: DialogueCase = { line, today: TODAY, turns: turns.map((turn) => ({ user: turn.user, waitS: turn.waitS, newSession: false, expect: {} })) };
          const run = await runner.run(dialogue);
          for (const [index, observed] of run.turns.entries()) {
            seen.calls += observed.calls.length;
            seen.sideEffectCalls += observed.calls.filter((call) => sideEffects.has(call.agentId)).length;
            seen.held += observed.held.length;
            if (turns[index]!.waitS >= EXPIRE_S) seen.expired += 1;
          }
          const problems = turns.flatMap((_turn, index) => violations(turns, run.turns, index, sideEffects));
          if (problems.length > 0) throw new Error(`${problems.join('\n')}\ndialogue: ${JSON.stringify(turns.map((turn) => (turn.waitS ? `[+${turn.waitS}s] ${turn.user}` : turn.user)))}`);
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
    } catch (error) {
      console.error(`dialogue property failed; replay with seed ${SEED}`);
      throw error;
    }
    expect(line).toBeGreaterThanOrEqual(RUNS);
    console.log(`${name}: ${JSON.stringify(seen)}`);
    expect(seen.sideEffectCalls).toBeGreaterThan(0);
    expect(seen.held).toBeGreaterThan(seen.sideEffectCalls);
    expect(seen.expired).toBeGreaterThan(0);
  }, 60_000);
});
