/**
 * Figures of one routing evaluation, computed from the outcomes, and their
 * text form. "Exact" means the routed agent set equals the labelled set
 * (order ignored); an out-of-scope line is right only when nothing is routed.
 * A line marked `"clarify": true` is also right when the turn asked with the
 * expected agent among its options. "Routed or offered" (every file): the
 * expected agents were routed, or the one expected agent not routed was among
 * the options (asked alone, or about a part of the message beside the routed
 * requests, which were all expected).
 */
import type { EvalOutcome } from './run-eval.js';

/** Precision / recall of one agent over the set. */
export interface AgentFigures {
  agent: string;
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
  precision: number;
  recall: number;
}

/** One wrong line. */
export interface EvalMiss {
  line: number;
  query: string;
  session: string[];
  expected: string[];
  got: string[];
}

/** Everything `switchboard eval` prints. Rates are 0..1; `null` when the set has no line of that kind. */
export interface EvalReport {
  total: number;
  exact: number;
  accuracy: number;
  /** Lines with exactly one expected agent whose best routed agent is that one. */
  top1: number | null;
  /** Top-1 of the nearest-example baseline on the same lines (null without a baseline or single-agent lines). */
  baselineTop1: number | null;
  /** Top-1 of the linear character n-gram classifier on the same lines (null without it or single-agent lines). */
  linearTop1: number | null;
  /** Out-of-scope lines (agents: []) where nothing was routed. */
  outOfScopeKeptOut: number | null;
  /** In-scope lines where nothing was routed. */
  inScopeNoAgent: number | null;
  /** In-scope lines whose expected agents were routed, or (one expected agent) among the clarification's options. */
  routedOrOffered: number | null;
  /** In-scope lines with no agent routed and no options offered. */
  inScopeNothing: number | null;
  /** Out-of-scope lines that were offered options (still kept out: nothing was routed). */
  outOfScopeOffered: number | null;
  /** Share of routed lines that got more than one agent. */
  multiAgentRate: number | null;
  /** Share of single-agent lines that got more than one agent (multi-agent answers nobody asked for). */
  unaskedMultiRate: number | null;
  /** Keys labelled in `inputs` whose planned value equals the label. */
  values: { correct: number; total: number; accuracy: number | null };
  /** Lines whose labelled agents are all among the pre-selected cards. */
  preselection: { recall: number | null; meanCards: number; maxCards: number };
  latencyMs: { p50: number; p99: number; max: number };
  counts: { inScope: number; outOfScope: number; multi: number; followUps: number };
  /** How many labelled queries each level decided (LLM mode; empty offline). */
  decidedBy: Partial<Record<NonNullable<EvalOutcome['source']>, number>>;
  /** Accuracy on follow-up lines (with `session`). */
  followUpAccuracy: number | null;
  agents: AgentFigures[];
  /** expected → got pairs of wrong lines, most frequent first ("∅" = nothing). */
  confusions: { expected: string; got: string; count: number }[];
  misses: EvalMiss[];
}

/** Computes the report. */
export function summariseEval(outcomes: readonly EvalOutcome[]): EvalReport {
  const perAgent = new Map<string, { tp: number; fp: number; fn: number }>();
  const agentEntry = (agent: string) => {
    let entry = perAgent.get(agent);
    if (!entry) perAgent.set(agent, (entry = { tp: 0, fp: 0, fn: 0 }));
    return entry;
  };
  const confusions = new Map<string, number>();
  const misses: EvalMiss[] = [];
  let exact = 0;
  let top1Hits = 0;
  let baselineHits = 0;
  let baselineLines = 0;
  let linearHits = 0;
  let linearLines = 0;
  let singles = 0;
  let outOfScope = 0;
  let keptOut = 0;
  let inScope = 0;
  let noAgent = 0;
  let routedOrOffered = 0;
  let nothing = 0;
  let oosOffered = 0;
  let routed = 0;
  let routedMulti = 0;
  let unaskedMulti = 0;
  let multi = 0;
  let followUps = 0;
  let followUpsRight = 0;
  let valuesCorrect = 0;
  let valuesTotal = 0;
  let preselectHits = 0;
  let preselectLines = 0;
  let cardsShown = 0;
  let maxCards = 0;

  const decidedBy: EvalReport['decidedBy'] = {};
  for (const outcome of outcomes) {
    if (outcome.source) decidedBy[outcome.source] = (decidedBy[outcome.source] ?? 0) + 1;
    const expected = new Set(outcome.case.agents);
    const got = new Set(outcome.predicted);
    const offered = outcome.offered ?? [];
    // Offered: the one expected agent not routed is among the options (alone, or beside the routed ones).
    const unrouted = [...expected].filter((agent) => !got.has(agent));
    const wasOffered = unrouted.length === 1 && offered.includes(unrouted[0]!) && (got.size === 0 ? expected.size === 1 : [...got].every((agent) => expected.has(agent)));
    const right = (expected.size === got.size && [...expected].every((agent) => got.has(agent))) || (outcome.case.clarify === true && wasOffered);
    if (right) exact += 1;
    for (const agent of expected) agentEntry(agent)[got.has(agent) ? 'tp' : 'fn'] += 1;
    for (const agent of got) if (!expected.has(agent)) agentEntry(agent).fp += 1;
    if (!right) {
      misses.push({ line: outcome.case.line, query: outcome.case.query, session: outcome.case.session, expected: [...expected], got: outcome.predicted });
      const missing = [...expected].filter((agent) => !got.has(agent));
      const extra = [...got].filter((agent) => !expected.has(agent));
      const pairs =
        missing.length === 0 ? extra.map((agent) => ['∅', agent]) : extra.length === 0 ? missing.map((agent) => [agent, '∅']) : missing.flatMap((a) => extra.map((b) => [a, b]));
      for (const [from, to] of pairs) confusions.set(`${from}\u0000${to}`, (confusions.get(`${from}\u0000${to}`) ?? 0) + 1);
    }
    if (expected.size === 0) {
      outOfScope += 1;
      if (got.size === 0) keptOut += 1;
      if (got.size === 0 && offered.length > 0) oosOffered += 1;
    } else {
      inScope += 1;
      if (got.size === 0) noAgent += 1;
      if (got.size === 0 && offered.length === 0) nothing += 1;
      if (wasOffered || [...expected].every((agent) => got.has(agent))) routedOrOffered += 1;
      preselectLines += 1;
      if ([...expected].every((agent) => outcome.preselected.includes(agent))) preselectHits += 1;
    }
    cardsShown += outcome.preselected.length;
    maxCards = Math.max(maxCards, outcome.preselected.length);
    if (expected.size === 1) {
      singles += 1;
      if (outcome.predicted[0] !== undefined && expected.has(outcome.predicted[0])) top1Hits += 1;
      if (got.size > 1) unaskedMulti += 1;
      if ('baseline' in outcome) {
        baselineLines += 1;
        if (outcome.baseline !== undefined && expected.has(outcome.baseline)) baselineHits += 1;
      }
      if ('linear' in outcome) {
        linearLines += 1;
        if (outcome.linear !== undefined && expected.has(outcome.linear)) linearHits += 1;
      }
    }
    if (expected.size > 1) multi += 1;
    if (got.size > 0) {
      routed += 1;
      if (got.size > 1) routedMulti += 1;
    }
    if (outcome.case.session.length > 0) {
      followUps += 1;
      if (right) followUpsRight += 1;
    }
    for (const [agent, values] of Object.entries(outcome.case.inputs)) {
      for (const [key, value] of Object.entries(values)) {
        valuesTotal += 1;
        const planned = outcome.inputs[agent]?.[key];
        if (planned !== undefined && String(planned) === String(value)) valuesCorrect += 1;
      }
    }
  }

  const latencies = outcomes.map((outcome) => outcome.latencyMs).sort((a, b) => a - b);
  const agents = [...perAgent.entries()]
    .map(([agent, { tp, fp, fn }]) => ({
      agent,
      truePositives: tp,
      falsePositives: fp,
      falseNegatives: fn,
      precision: tp + fp === 0 ? 1 : tp / (tp + fp),
      recall: tp + fn === 0 ? 1 : tp / (tp + fn),
    }))
    .sort((a, b) => a.agent.localeCompare(b.agent));
  return {
    total: outcomes.length,
    exact,
    accuracy: ratio(exact, outcomes.length) ?? 0,
    top1: ratio(top1Hits, singles),
    baselineTop1: ratio(baselineHits, baselineLines),
    linearTop1: ratio(linearHits, linearLines),
    outOfScopeKeptOut: ratio(keptOut, outOfScope),
    inScopeNoAgent: ratio(noAgent, inScope),
    routedOrOffered: ratio(routedOrOffered, inScope),
    inScopeNothing: ratio(nothing, inScope),
    outOfScopeOffered: ratio(oosOffered, outOfScope),
    multiAgentRate: ratio(routedMulti, routed),
    unaskedMultiRate: ratio(unaskedMulti, singles),
    values: { correct: valuesCorrect, total: valuesTotal, accuracy: ratio(valuesCorrect, valuesTotal) },
    preselection: { recall: ratio(preselectHits, preselectLines), meanCards: outcomes.length > 0 ? cardsShown / outcomes.length : 0, maxCards },
    latencyMs: { p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), max: latencies.at(-1) ?? 0 },
    counts: { inScope, outOfScope, multi, followUps },
    followUpAccuracy: ratio(followUpsRight, followUps),
    decidedBy,
    agents,
    confusions: [...confusions.entries()]
      .map(([pair, count]) => {
        const [expected, got] = pair.split('\u0000') as [string, string];
        return { expected, got, count };
      })
      .sort((a, b) => b.count - a.count || a.expected.localeCompare(b.expected)),
    misses,
  };
}

/** The report as the text `switchboard eval` prints. */
export function formatEvalReport(report: EvalReport, options: { file: string; mode: string; agents: number; trainingMs?: number; maxMisses?: number; maxAgents?: number }): string {
  const lines: string[] = [];
  const pct = (value: number | null) => (value === null ? 'n/a' : `${(value * 100).toFixed(1)}%`);
  const c = report.counts;
  lines.push(`${options.file}: ${report.total} lines (${c.inScope} in scope, ${c.multi} multi-agent, ${c.outOfScope} out of scope, ${c.followUps} follow-ups), ${options.agents} enabled agents, ${options.mode} mode`);
  lines.push('');
  lines.push(`exact agent-set accuracy   ${pct(report.accuracy)}  (${report.exact}/${report.total})`);
  lines.push(`routed or offered          ${pct(report.routedOrOffered)}  (in-scope lines: the right agents routed, or the right one among a clarification's options)`);
  lines.push(`top-1 (single-agent lines) ${pct(report.top1)}`);
  if (report.baselineTop1 !== null && report.top1 !== null) {
    const ratioText = report.baselineTop1 > 0 ? `, ratio ${(report.top1 / report.baselineTop1).toFixed(2)}` : '';
    lines.push(`  nearest-example baseline ${pct(report.baselineTop1)}  (same examples, run now${ratioText})`);
  }
  if (report.linearTop1 !== null && report.top1 !== null) {
    const ratioText = report.linearTop1 > 0 ? `, ratio ${(report.top1 / report.linearTop1).toFixed(2)}` : '';
    lines.push(`  linear n-gram classifier ${pct(report.linearTop1)}  (same examples, trained now${ratioText})`);
  }
  lines.push(`out of scope kept out      ${pct(report.outOfScopeKeptOut)}  (offered options on ${pct(report.outOfScopeOffered)})`);
  lines.push(`in scope, no agent         ${pct(report.inScopeNoAgent)}  (no agent and no options ${pct(report.inScopeNothing)})`);
  lines.push(`multi-agent answers        ${pct(report.multiAgentRate)} of routed lines; unasked ${pct(report.unaskedMultiRate)} of single-agent lines`);
  lines.push(`follow-ups                 ${pct(report.followUpAccuracy)}`);
  lines.push(`extracted values           ${pct(report.values.accuracy)}  (${report.values.correct}/${report.values.total})`);
  lines.push(`pre-selection recall       ${pct(report.preselection.recall)}  (cards shown: mean ${report.preselection.meanCards.toFixed(1)}, max ${report.preselection.maxCards})`);
  const decided = report.decidedBy;
  if (Object.keys(decided).length > 0) {
    lines.push(
      `decided by                 model ${decided.model ?? 0}, word rules ${decided.rules ?? 0}, intent cache ${decided.cache ?? 0}, offline after a model failure ${decided.fallback ?? 0}`,
    );
  }
  lines.push(`latency                    p50 ${report.latencyMs.p50.toFixed(3)} ms, p99 ${report.latencyMs.p99.toFixed(3)} ms${options.trainingMs === undefined ? '' : `; model trained in ${options.trainingMs.toFixed(1)} ms`}`);
  lines.push('');
  const maxAgents = options.maxAgents ?? 40;
  const shownAgents = report.agents.length > maxAgents ? [...report.agents].sort((a, b) => a.precision + a.recall - (b.precision + b.recall)).slice(0, maxAgents) : report.agents;
  const width = Math.max(5, ...shownAgents.map((agent) => agent.agent.length));
  lines.push(`${'agent'.padEnd(width)}  precision  recall   tp  fp  fn${report.agents.length > maxAgents ? `   (the ${maxAgents} weakest of ${report.agents.length})` : ''}`);
  for (const agent of shownAgents) {
    lines.push(
      `${agent.agent.padEnd(width)}  ${pct(agent.precision).padStart(9)}  ${pct(agent.recall).padStart(6)}  ${String(agent.truePositives).padStart(3)} ${String(agent.falsePositives).padStart(3)} ${String(agent.falseNegatives).padStart(3)}`,
    );
  }
  if (report.confusions.length > 0) {
    lines.push('');
    lines.push('confusions (expected → got, ∅ = none):');
    for (const pair of report.confusions.slice(0, 20)) lines.push(`  ${pair.expected} → ${pair.got}  ×${pair.count}`);
  }
  if (report.misses.length > 0) {
    const maxMisses = options.maxMisses ?? 50;
    lines.push('');
    lines.push(`misses (${report.misses.length}):`);
    for (const miss of report.misses.slice(0, maxMisses)) {
      const context = miss.session.length > 0 ? `  [after: ${miss.session.join(' / ')}]` : '';
      lines.push(`  line ${miss.line}: ${miss.query}${context}`);
      lines.push(`      expected [${miss.expected.join(', ')}]  got [${miss.got.join(', ')}]`);
    }
    if (report.misses.length > maxMisses) lines.push(`  … ${report.misses.length - maxMisses} more (use --json for all)`);
  }
  return `${lines.join('\n')}\n`;
}

function ratio(part: number, whole: number): number | null {
  return whole === 0 ? null : part / whole;
}

function percentile(sorted: readonly number[], quantile: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(quantile * sorted.length) - 1))]!;
}
