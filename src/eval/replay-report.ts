/**
 * The replay report as `switchboard replay` prints it, in the eval report's
 * style: the share unchanged, per agent the turns gained and lost, the moves
 * (before → after) by count, then each changed message with its marks.
 */
import { describeRouting, type ReplayResult } from './replay.js';

/** What the report's header names. */
export interface ReplayReportContext {
  base: string;
  config: string;
  store: string;
  mode: string;
  since?: string;
  tenant?: string;
  /** Changed messages printed (default 50; `--json` has them all). */
  maxChanges?: number;
}

const MARK_WORDS: Record<string, string> = { clarification: 'clarified', correction: 'corrected', escalated: 'escalated' };

/** The report as text. */
export function formatReplayReport(result: ReplayResult, context: ReplayReportContext): string {
  const lines: string[] = [];
  const pct = (value: number) => `${(value * 100).toFixed(1)}%`;
  const scope = [context.since ? `since ${context.since}` : 'all stored', context.tenant !== undefined ? `tenant "${context.tenant}"` : ''].filter(Boolean).join(', ');
  lines.push(`replay: ${result.turns} recorded turns (${scope}; ${result.skipped} without a message of their own skipped) from ${context.store}, ${context.mode} mode`);
  lines.push(`registries: live ${context.base} → new ${context.config}`);
  lines.push('');
  lines.push(`unchanged                  ${pct(result.shareUnchanged)}  (${result.unchanged}/${result.turns})`);
  const marked = Object.entries(result.markedChanges).map(([mark, count]) => `${count} ${MARK_WORDS[mark] ?? mark}`);
  lines.push(`changed                    ${result.turns - result.unchanged}${marked.length > 0 ? `  (of them ${marked.join(', ')})` : ''}`);
  if (result.agents.length > 0) {
    lines.push('');
    const width = Math.max(5, ...result.agents.map((agent) => agent.agent.length));
    lines.push(`${'agent'.padEnd(width)}  gained  lost`);
    for (const agent of result.agents) lines.push(`${agent.agent.padEnd(width)}  ${`+${agent.gained}`.padStart(6)}  ${`-${agent.lost}`.padStart(4)}`);
  }
  if (result.moves.length > 0) {
    lines.push('');
    lines.push('moves (before → after):');
    for (const move of result.moves.slice(0, 20)) lines.push(`  ${move.before} → ${move.after}  ×${move.count}`);
    if (result.moves.length > 20) lines.push(`  … ${result.moves.length - 20} more`);
  }
  if (result.changes.length > 0) {
    const max = context.maxChanges ?? 50;
    lines.push('');
    lines.push(`changed messages (${result.changes.length}):`);
    for (const change of result.changes.slice(0, max)) {
      const marks = change.marks.length > 0 ? `  [${change.marks.map((mark) => MARK_WORDS[mark] ?? mark).join(', ')}]` : '';
      lines.push(`  ${change.at} ${change.turn_id}: ${change.query}${marks}`);
      lines.push(`      ${describeRouting(change.before)} → ${describeRouting(change.after)}`);
    }
    if (result.changes.length > max) lines.push(`  … ${result.changes.length - max} more (use --json for all)`);
  }
  return `${lines.join('\n')}\n`;
}

/** The result as `--json` prints it (routings written as the text prints them, beside their parts). */
export function replayJson(result: ReplayResult): Record<string, unknown> {
  return {
    turns: result.turns,
    skipped: result.skipped,
    unchanged: result.unchanged,
    share_unchanged: result.shareUnchanged,
    agents: result.agents,
    moves: result.moves,
    marked_changes: result.markedChanges,
    changes: result.changes.map((change) => ({
      ...change,
      before: { ...change.before, text: describeRouting(change.before) },
      after: { ...change.after, text: describeRouting(change.after) },
    })),
  };
}
