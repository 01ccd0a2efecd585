/**
 * wrk (Debian's, installed first when missing): a native load generator, so that what is measured is the server and
 * not a Node client. One run is `wrk -t2 -c<connections> -d<seconds>s --latency --timeout 10s`, its figures read from
 * what it prints; a POST body is made per request by a Lua script (each JSON-RPC request its own id, as a session's
 * requests must be).
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { debianBinary } from '../../test/support/debian.js';

export interface WrkRun {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Answers not 2xx, and connect, read, write errors and timeouts. */
  readonly errors: number;
  readonly requests: number;
}

/** wrk's path. */
export function wrkBinary(): string {
  return debianBinary(['/usr/bin/wrk', '/usr/local/bin/wrk'], '--version', 'wrk', 'the throughput bench needs it');
}

/** A Lua script that POSTs this JSON-RPC call to every request, with a new id each time, and these headers. */
export function writePostScript(file: string, call: { method: string; params: unknown }, headers: Record<string, string>): string {
  const json = JSON.stringify({ jsonrpc: '2.0', id: 0, ...call }).replace('"id":0', '"id":%ID%');
  const lua = [
    'wrk.method = "POST"',
    ...Object.entries({ 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers }).map(([name, value]) => `wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`),
    'local counter = 0',
    `local body = ${JSON.stringify(json)}`,
    'request = function()',
    '  counter = counter + 1',
    '  return wrk.format(nil, nil, nil, (string.gsub(body, "%%ID%%", tostring(counter))))',
    'end',
    '',
  ].join('\n');
  writeFileSync(file, lua);
  return file;
}

export async function runWrk(url: string, connections: number, seconds: number, options: { script?: string; headers?: Record<string, string> } = {}): Promise<WrkRun> {
  const args = ['-t2', `-c${connections}`, `-d${seconds}s`, '--latency', '--timeout', '10s', ...Object.entries(options.headers ?? {}).flatMap(([n, v]) => ['-H', `${n}: ${v}`]), ...(options.script ? ['-s', options.script] : []), url];
  const { stdout } = await promisify(execFile)(wrkBinary(), args, { maxBuffer: 16 * 1024 * 1024 });
  return parseWrk(stdout);
}

/** wrk's summary: requests/s, the 50% and 99% latencies, the errors. */
export function parseWrk(text: string): WrkRun {
  const duration = (label: string): number => {
    const match = new RegExp(`^\\s*${label}\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(text);
    if (!match) return Number.NaN;
    const value = Number(match[1]);
    return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : match[2] === 'm' ? value * 60_000 : value;
  };
  const sockets = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0);
  return {
    requestsPerSecond: Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? Number.NaN),
    p50Ms: duration('50%'),
    p99Ms: duration('99%'),
    errors: non2xx + (sockets ? sockets.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0),
    requests: Number(/(\d+) requests in/.exec(text)?.[1] ?? 0),
  };
}
