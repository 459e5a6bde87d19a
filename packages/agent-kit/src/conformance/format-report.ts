/**
 * The human-readable report: one line per check, then a summary line.
 */
import type { ConformanceReport } from './types.js';

const LABELS = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP' } as const;

/** One line per check (`PASS  MUST    envelope_shape  detail`; a failure adds what was sent, received and expected) and a summary. */
export function formatReport(report: ConformanceReport): string {
  const width = Math.max(...report.checks.map((check) => check.id.length));
  const lines = report.checks.map((check) => {
    const line = `${LABELS[check.outcome]}  ${check.level.padEnd(6)}  ${check.id.padEnd(width)}  ${check.detail}`;
    const shown = (['sent', 'received', 'expected'] as const).filter((field) => check[field] !== undefined);
    return [line, ...shown.map((field) => `        ${`${field}:`.padEnd(9)} ${check[field]}`)].join('\n');
  });
  const failedMust = report.checks.filter((check) => check.level === 'MUST' && check.outcome === 'fail');
  const failedShould = report.checks.filter((check) => check.level === 'SHOULD' && check.outcome === 'fail');
  const name = report.target.agent_id ? `${report.target.agent_id} (${report.target.url})` : report.target.url;
  const verdict = report.passed
    ? `${name} conforms (${report.target.protocol})`
    : `${name} does not conform (${report.target.protocol}): failed ${failedMust.map((check) => check.id).join(', ')}`;
  const warnings = failedShould.length > 0 ? `; ${failedShould.length} SHOULD check${failedShould.length === 1 ? '' : 's'} failed` : '';
  return `${lines.join('\n')}\n${verdict}${warnings}\n`;
}
