/** docs/runtime-report.md: per spec and in total, and every call that was not OK, with its cause. */
import { CALL_CLASSES, NOT_COUNTED, type CallClass } from './classify.js';
import { tally, type SpecRun } from './sweep.js';

const LABELS: Record<CallClass, string> = {
  ok: 'OK',
  rejected: 'rejected by the mock',
  unreadable: 'response not readable',
  'not-sent': 'not sent',
  'mock-limit': 'mock limitation',
  failed: 'call failed',
  unfit: 'no valid arguments made',
};

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' ').replace(/`/g, "'");

/** Share of calls that are OK, leaving out those that say nothing of the generated server. */
export function okShare(runs: readonly SpecRun[]): { ok: number; counted: number } {
  const counts = tally(runs.flatMap((r) => r.calls));
  return { ok: counts.ok, counted: CALL_CLASSES.filter((c) => !NOT_COUNTED.has(c)).reduce((sum, c) => sum + counts[c], 0) };
}

export function runtimeReport(runs: readonly SpecRun[], header: readonly string[]): string {
  const all = runs.flatMap((r) => r.calls);
  const counts = tally(all);
  const { ok, counted } = okShare(runs);
  const lines = [
    '# Runtime sweep',
    '',
    ...header,
    '',
    `**${ok} of ${counted} calls OK (${counted === 0 ? '–' : ((100 * ok) / counted).toFixed(2)}%), mock limitations and calls without valid arguments left out**; ${runs.length} specs, ${runs.reduce((s, r) => s + r.tools, 0)} tools, ${all.length} calls.`,
    '',
    `| ${CALL_CLASSES.map((c) => LABELS[c]).join(' | ')} |`,
    `|${CALL_CLASSES.map(() => '---:').join('|')}|`,
    `| ${CALL_CLASSES.map((c) => counts[c]).join(' | ')} |`,
    '',
    '## Per spec',
    '',
    `| spec | tools | calls | ${CALL_CLASSES.map((c) => LABELS[c]).join(' | ')} | seconds |`,
    `|---|---:|---:|${CALL_CLASSES.map(() => '---:').join('|')}|---:|`,
    ...runs.map((r) => {
      const c = tally(r.calls);
      return `| ${r.id}${r.error ? ` (${cell(r.error.slice(0, 120))})` : ''} | ${r.tools} | ${r.calls.length} | ${CALL_CLASSES.map((k) => c[k]).join(' | ')} | ${r.seconds.toFixed(0)} |`;
    }),
    '',
    '## Calls that were not OK',
    '',
  ];
  const failing = (c: SpecRun['calls'][number]): boolean => c.class !== 'ok' && !NOT_COUNTED.has(c.class);
  const unexplained = runs.flatMap((r) => r.calls.filter((c) => failing(c) && !c.specBug));
  const specBugs = runs.flatMap((r) => r.calls.filter((c) => failing(c) && c.specBug));
  lines.splice(lines.indexOf('## Per spec'), 0,
    `Of the calls that failed, ${specBugs.length} fail because the spec contradicts itself (evidence below) and ${unexplained.length} ${unexplained.length === 1 ? 'is' : 'are'} not explained (the generator's until shown otherwise).`, '');
  const failures = runs.filter((r) => r.calls.some((c) => c.class !== 'ok'));
  if (failures.length === 0) lines.push('None.', '');
  for (const run of failures) {
    lines.push(`### ${run.id}`, '', '| tool | arguments | class | reason | request | cause |', '|---|---|---|---|---|---|');
    for (const call of run.calls.filter((c) => c.class !== 'ok')) {
      const cause = call.specBug ? `spec: ${call.specBug}` : call.class === 'mock-limit' ? 'mock' : call.class === 'unfit' ? 'argument generator' : '**unexplained**';
      lines.push(`| ${call.tool} | ${call.mode} | ${LABELS[call.class]} | ${cell(call.reason.slice(0, 400))} | ${cell(call.request ?? '')} | ${cell(cause)} |`);
    }
    lines.push('');
  }
  return lines.join('\n');
}
