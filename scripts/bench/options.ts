/**
 * The command-line options of the benchmark (see scripts/bench.ts): parsed and checked once, then
 * read-only for the whole run.
 */
import { parseArgs } from 'node:util';

export interface Options {
  /** Runs per figure (--runs N; default 5, --quick 2). */
  readonly runs: number;
  /** How the number of runs was chosen, for the notes: `--quick`, `--runs N` or `default`. */
  readonly runsChosenBy: string;
  /** Tool calls (and direct GETs) per run. */
  readonly calls: number;
  /** Timed `dotnet build` runs: min(runs, 3). */
  readonly buildRuns: number;
  /** The sections to run (--only, or all of them). */
  readonly selected: ReadonlySet<string>;
  /** No --only: every section runs, and the report goes to docs/benchmarks.md unless --out says otherwise. */
  readonly isFullRun: boolean;
  readonly noProfile: boolean;
  /** --out FILE, as given. */
  readonly out: string | undefined;
  readonly keep: boolean;
}

/** Parses process.argv; prints the help or an error and exits when there is nothing to run. */
export function parseOptions(sections: readonly string[]): Options {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string' },
      quick: { type: 'boolean', default: false },
      only: { type: 'string', multiple: true },
      calls: { type: 'string', default: '1000' },
      'no-profile': { type: 'boolean', default: false },
      out: { type: 'string' },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });

  if (values.help) {
    process.stdout.write(
      [
        `usage: node dist/scripts/bench.js [--runs N] [--quick] [--only ${sections.join(',')}] [--calls N] [--no-profile] [--out FILE] [--keep]`,
        '  --runs N      runs per figure (default 5; --quick: 2); dotnet build is timed min(N, 3) times',
        '  --only LIST   only these sections; docs/benchmarks.md is then left alone unless --out is given',
        '  --calls N     tool calls (and direct GETs) per run (default 1000)',
        '  --no-profile  skip the --cpu-prof run of a generator command that misses its goal',
        '  --out FILE    where to write the report (default docs/benchmarks.md for a full run)',
        '  --keep        keep the temporary work folder',
        '',
      ].join('\n'),
    );
    process.exit(0);
  }
  for (const option of ['runs', 'calls'] as const) {
    const raw = values[option];
    if (raw !== undefined && !(Number.isInteger(Number(raw)) && Number(raw) >= 1)) {
      process.stderr.write(`--${option} must be a positive integer, not ${raw}\n`);
      process.exit(2);
    }
  }

  const runs = Math.max(1, Number(values.runs ?? (values.quick ? 2 : 5)));
  const onlyList = (values.only ?? []).flatMap((o) => o.split(',')).map((o) => o.trim()).filter((o) => o !== '');
  for (const o of onlyList) {
    if (!sections.includes(o)) {
      process.stderr.write(`unknown section ${o}: expected ${sections.join(', ')}\n`);
      process.exit(2);
    }
  }
  return {
    runs,
    runsChosenBy: values.quick ? '--quick' : values.runs ? `--runs ${runs}` : 'default',
    calls: Math.max(1, Number(values.calls)),
    buildRuns: Math.min(runs, 3),
    selected: new Set(onlyList.length > 0 ? onlyList : sections),
    isFullRun: onlyList.length === 0,
    noProfile: values['no-profile'],
    out: values.out,
    keep: values.keep,
  };
}
