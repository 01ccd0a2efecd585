/**
 * What the sections of the benchmark find: the rows of the one table, notes, problems, and the
 * verdict helpers for a row's goal.
 */

/** A row of the one table. */
export interface Row {
  readonly area: string;
  readonly what: string;
  readonly spec: string;
  readonly value: string;
  readonly spread: string;
  readonly beside: string;
  readonly goal: string;
  readonly status: '' | 'PASS' | 'MISS' | 'FAILED';
  /** The runs' spread crosses the goal: the verdict may flip from run to run. */
  readonly borderline?: boolean;
}

export interface Results {
  readonly rows: Row[];
  /** Notes under the table, after the notes on method. */
  readonly notes: string[];
  /** Notes on CPU profiles, after the other notes. */
  readonly profiles: string[];
  /** Listed at the end under "Problems seen". */
  readonly problems: string[];
}

export function newResults(): Results {
  return { rows: [], notes: [], profiles: [], problems: [] };
}

export const verdict = (ok: boolean): 'PASS' | 'MISS' => (ok ? 'PASS' : 'MISS');

/** Whether some runs are under the limit and some over it. */
export const straddles = (list: readonly number[], limit: number): boolean => list.some((v) => v <= limit) && list.some((v) => v > limit);
