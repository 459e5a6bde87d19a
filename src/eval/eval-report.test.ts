import { describe, expect, it } from 'vitest';
import { formatEvalReport, summariseEval } from './eval-report.js';
import type { EvalOutcome } from './run-eval.js';

function outcome(line: number, expected: string[], predicted: string[], extra: Partial<EvalOutcome> = {}): EvalOutcome {
  return {
    case: { line, query: `q${line}`, agents: expected, session: [], inputs: {} },
    predicted,
    kind: predicted.length > 0 ? 'business' : 'simple',
    inputs: {},
    preselected: [...expected],
    latencyMs: line,
    ...extra,
  };
}

describe('summariseEval', () => {
  it('scores exact sets, per-agent precision/recall, scope rates and confusions', () => {
    const report = summariseEval([
      outcome(1, ['hotel'], ['hotel']),
      outcome(2, ['hotel'], ['weather']),
      outcome(3, ['hotel', 'weather'], ['weather', 'hotel']),
      outcome(4, [], []),
      outcome(5, [], ['hotel']),
      outcome(6, ['weather'], []),
      outcome(7, ['weather'], ['weather', 'hotel']),
    ]);
    expect(report.exact).toBe(3);
    expect(report.accuracy).toBeCloseTo(3 / 7);
    expect(report.top1).toBeCloseTo(2 / 4);
    expect(report.outOfScopeKeptOut).toBe(0.5);
    expect(report.inScopeNoAgent).toBeCloseTo(1 / 5);
    expect(report.multiAgentRate).toBeCloseTo(2 / 5);
    expect(report.unaskedMultiRate).toBeCloseTo(1 / 4);
    const hotel = report.agents.find((agent) => agent.agent === 'hotel')!;
    expect([hotel.truePositives, hotel.falsePositives, hotel.falseNegatives]).toEqual([2, 2, 1]);
    expect(hotel.precision).toBe(0.5);
    expect(report.confusions).toContainEqual({ expected: 'hotel', got: 'weather', count: 1 });
    expect(report.confusions).toContainEqual({ expected: '∅', got: 'hotel', count: 2 });
    expect(report.confusions).toContainEqual({ expected: 'weather', got: '∅', count: 1 });
    expect(report.misses.map((miss) => miss.line)).toEqual([2, 5, 6, 7]);
    expect(report.latencyMs.p50).toBe(4);
    expect(report.latencyMs.p99).toBe(7);
  });

  it('scores labelled values and pre-selection recall', () => {
    const report = summariseEval([
      {
        ...outcome(1, ['hotel'], ['hotel'], { preselected: ['weather'] }),
        case: { line: 1, query: 'q', agents: ['hotel'], session: ['earlier'], inputs: { hotel: { city: '北京', nights: 2 } } },
        inputs: { hotel: { city: '北京', nights: 3 } },
      },
      outcome(2, ['weather'], ['weather']),
    ]);
    expect(report.values).toEqual({ correct: 1, total: 2, accuracy: 0.5 });
    expect(report.preselection.recall).toBe(0.5);
    expect(report.followUpAccuracy).toBe(1);
  });

  it('scores the baseline on the same single-agent lines, and prints it beside top-1', () => {
    const report = summariseEval([
      outcome(1, ['hotel'], ['hotel'], { baseline: 'hotel' }),
      outcome(2, ['hotel'], ['hotel'], { baseline: 'weather' }),
      outcome(3, ['weather'], [], { baseline: undefined }),
      outcome(4, [], [], { baseline: 'hotel' }),
    ]);
    expect(report.top1).toBeCloseTo(2 / 3);
    expect(report.baselineTop1).toBeCloseTo(1 / 3);
    expect(formatEvalReport(report, { file: 'f', mode: 'offline', agents: 2 })).toContain('nearest-example baseline 33.3%  (same examples, run now, ratio 2.00)');
    expect(summariseEval([outcome(1, ['hotel'], ['hotel'])]).baselineTop1).toBeNull();
  });

  it('scores the linear n-gram classifier the same way, printed on its own line', () => {
    const report = summariseEval([
      outcome(1, ['hotel'], ['hotel'], { baseline: 'hotel', linear: 'hotel' }),
      outcome(2, ['hotel'], ['hotel'], { baseline: 'weather', linear: 'weather' }),
      outcome(3, ['weather'], [], { baseline: undefined, linear: 'weather' }),
    ]);
    expect(report.linearTop1).toBeCloseTo(2 / 3);
    expect(formatEvalReport(report, { file: 'f', mode: 'offline', agents: 2 })).toContain('linear n-gram classifier 66.7%  (same examples, trained now, ratio 1.00)');
    expect(summariseEval([outcome(1, ['hotel'], ['hotel'])]).linearTop1).toBeNull();
  });
});

