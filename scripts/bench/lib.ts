/**
 * Helpers of scripts/bench.ts: statistics, timing a child process (wall time and peak RSS),
 * reading the memory of a process tree from /proc, and formatting.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';

// ---------------------------------------------------------------------------------------------
// Statistics

export function sorted(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/** Linear-interpolated quantile (q in 0..1) of a non-empty list. */
export function quantile(values: readonly number[], q: number): number {
  const s = sorted(values);
  if (s.length === 0) return Number.NaN;
  const position = (s.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  const a = s[low] ?? Number.NaN;
  const b = s[high] ?? Number.NaN;
  return a + (b - a) * (position - low);
}

export const median = (values: readonly number[]): number => quantile(values, 0.5);
export const min = (values: readonly number[]): number => (values.length === 0 ? Number.NaN : Math.min(...values));
export const max = (values: readonly number[]): number => (values.length === 0 ? Number.NaN : Math.max(...values));

/** Nearest-rank percentile (p in 0..100), the usual definition for latency tails. */
export function percentile(values: readonly number[], p: number): number {
  const s = sorted(values);
  if (s.length === 0) return Number.NaN;
  const rank = Math.min(s.length, Math.max(1, Math.ceil((p / 100) * s.length)));
  return s[rank - 1] ?? Number.NaN;
}

/** The list started at index `by` (wrapping): the order of round `by` when rounds rotate. */
export const rotate = <T>(list: readonly T[], by: number): T[] => list.map((_, i) => list[(i + by) % list.length] as T);

// ---------------------------------------------------------------------------------------------
// Formatting

export function seconds(value: number, digits = 2): string {
  return Number.isFinite(value) ? `${value.toFixed(digits)} s` : '—';
}

export function ms(value: number, digits = 2): string {
  return Number.isFinite(value) ? `${value.toFixed(digits)} ms` : '—';
}

export function mb(kilobytes: number): string {
  return Number.isFinite(kilobytes) ? `${Math.round(kilobytes / 1024).toLocaleString("en-US")} MB` : "—";
}

export function int(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '—';
}

export function percent(part: number, whole: number): string {
  return whole === 0 ? '—' : `${Math.round((100 * part) / whole)}%`;
}

export function ratio(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(1)}×` : '—';
}

/** `a–b` with a formatter, or `—`. */
export function range(values: readonly number[], format: (v: number) => string): string {
  if (values.length === 0) return '—';
  const low = format(min(values));
  const high = format(max(values));
  // "0.12 s–0.15 s" reads badly: keep the unit once.
  const unit = /\s(\S+)$/.exec(high)?.[1];
  return unit && low.endsWith(` ${unit}`) ? `${low.slice(0, -unit.length - 1)}–${high}` : `${low}–${high}`;
}

/** Escapes a table cell. */
export function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

// ---------------------------------------------------------------------------------------------
// Timing a child process

export interface ProcessRun {
  readonly wallSeconds: number;
  /** Peak resident set size of the process, in kilobytes (NaN when unknown). */
  readonly peakRssKb: number;
  readonly exitCode: number;
  readonly stderr: string;
}

/** How peak RSS is measured: GNU time's %M when /usr/bin/time is GNU time, else a preload in the node child. */
export type RssMethod = 'gnu-time' | 'node-preload';

export function detectRssMethod(): RssMethod {
  if (!existsSync('/usr/bin/time')) return 'node-preload';
  const probe = spawnSync('/usr/bin/time', ['--version'], { encoding: 'utf8' });
  return /GNU/.test(`${probe.stdout}${probe.stderr}`) ? 'gnu-time' : 'node-preload';
}

/**
 * Runs `node ...args` and measures it: wall time from spawn to exit with performance.now() in this
 * process, peak RSS with GNU time's `%M` (the ru_maxrss of the child, in KB) or, without GNU time,
 * with a preloaded module that writes process.resourceUsage().maxRSS at exit.
 * stdout is discarded; stderr is kept (for error messages).
 */
export async function timeNode(args: readonly string[], scratch: string, method: RssMethod, preload: string, cwd: string): Promise<ProcessRun> {
  const rssFile = join(scratch, `rss-${process.pid}-${Math.random().toString(36).slice(2)}.txt`);
  const command = method === 'gnu-time' ? '/usr/bin/time' : process.execPath;
  const fullArgs =
    method === 'gnu-time' ? ['-f', '%M', '-o', rssFile, process.execPath, ...args] : ['--import', preload, ...args];
  const env = method === 'gnu-time' ? process.env : { ...process.env, BENCH_RSS_FILE: rssFile };
  const started = performance.now();
  const child = spawn(command, fullArgs, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    if (stderr.length < 20_000) stderr += chunk;
  });
  const exitCode = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
  const wallSeconds = (performance.now() - started) / 1000;
  let peakRssKb = Number.NaN;
  try {
    const text = readFileSync(rssFile, 'utf8');
    const lines = text.trim().split('\n');
    peakRssKb = Number(lines[lines.length - 1]);
  } catch {
    // no figure: the child died before writing it
  }
  await rm(rssFile, { force: true });
  return { wallSeconds, peakRssKb, exitCode, stderr };
}

/** First meaningful line of an error output. */
export function firstErrorLine(stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !/^Command exited with non-zero status/.test(l));
  return lines.find((l) => /error/i.test(l)) ?? lines[0] ?? '(no message)';
}

// ---------------------------------------------------------------------------------------------
// /proc

/** Parent pid of every process visible in /proc. */
function parentPids(): Map<number, number> {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid …; comm may contain spaces and parentheses: split after the last ')'.
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(entry), Number(rest[1]));
    } catch {
      // the process ended meanwhile
    }
  }
  return parents;
}

/** The pid and all its descendants. */
export function processTree(pid: number): number[] {
  const parents = parentPids();
  const result = [pid];
  for (let i = 0; i < result.length; i++) {
    const current = result[i];
    for (const [child, parent] of parents) if (parent === current && !result.includes(child)) result.push(child);
  }
  return result.filter(isAlive);
}

/** A field of /proc/<pid>/status in kB (VmRSS, VmHWM), or NaN. */
export function statusKb(pid: number, field: string): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

/** The process exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

export async function sleep(milliseconds: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, milliseconds));
}

/** Waits until none of the pids exists; SIGKILLs those still there after `graceMs` (they are ours). */
export async function reap(pids: readonly number[], graceMs = 5000): Promise<number> {
  const deadline = Date.now() + graceMs;
  let alive = pids.filter(isAlive);
  while (alive.length > 0 && Date.now() < deadline) {
    await sleep(50);
    alive = alive.filter(isAlive);
  }
  for (const pid of alive) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  return alive.length;
}
