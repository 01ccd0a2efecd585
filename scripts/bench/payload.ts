/**
 * 4. tools/list payload: the size of the generated GitHub server's tools/list answer, and what each
 * tool carries, beside the peer generator's.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Area } from './area.js';
import { specOf, type BenchContext } from './context.js';
import { carried, describeCarried, type Carried } from './carried.js';
import { runGen } from './generator.js';
import { int, percent, ratio } from './lib.js';
import { peerTools } from './peer.js';
import { project } from './projects.js';
import { verdict } from './results.js';
import { startServer, stopServer, type Started } from './servers.js';

const GOALS = { bytesPerTool: 1500 } as const;
/** The peer's bytes per tool as quoted in the performance issue. */
const PEER_QUOTED_BYTES_PER_TOOL = 2518;
const AREA = '4 tools/list';

export const payload: Area = {
  name: 'payload',
  corpus: true,
  peer: true,
  run: (context, { peer }) => benchPayload(context, peer),
  method: () =>
    `tools/list: the tools array exactly as the server sent it (JSON-RPC message before the SDK's validation), \`JSON.stringify\`d; tokens ≈ bytes / 4. The peer's figure is re-measured statically from its generated src/index.ts (the name, description and inputSchema its ListTools handler returns), with no npm install or build of the peer's server.`,
};

/** What the peer's generated GitHub server lists (generated now unless the generation area left it). */
async function peerCarried(context: BenchContext): Promise<Carried | undefined> {
  const dir = join(context.work, 'gen', 'github', 'peer');
  try {
    if (!existsSync(join(dir, 'src/index.ts'))) await runGen(context, 'peer', specOf(context, 'github'), dir);
    return carried(peerTools(join(dir, 'src/index.ts')));
  } catch (error) {
    context.results.problems.push(`peer tools/list payload: ${(error as Error).message}`);
    return undefined;
  }
}

async function benchPayload(context: BenchContext, peer: boolean): Promise<void> {
  const { rows, problems } = context.results;
  const p = await project(context, 'github', true, false);
  const peerC = peer ? await peerCarried(context) : undefined;
  if (p.error || !p.releaseDll) {
    rows.push({ area: AREA, what: 'tools/list payload', spec: 'GitHub', value: 'failed', spread: '', beside: p.error ?? '', goal: `< ${int(GOALS.bytesPerTool)} bytes per tool`, status: 'FAILED' });
    return;
  }
  let server: Started | undefined;
  try {
    server = await startServer('dotnet', [p.releaseDll], p.dir, { [p.baseUrlVariable]: 'http://127.0.0.1:9/' });
    const tools = server.rawTools.length > 0 ? server.rawTools : server.tools;
    const c = carried(tools);
    const perTool = c.bytes / c.tools;
    const peerPerTool = peerC ? peerC.bytes / peerC.tools : Number.NaN;
    rows.push({
      area: AREA,
      what: 'JSON of the tools array, total',
      spec: 'GitHub',
      value: `${int(c.bytes)} bytes ≈ ${int(c.bytes / 4)} tokens`,
      spread: 'deterministic',
      beside: `${int(c.tools)} tools; descriptions ${percent(c.descriptionBytes, c.bytes)}, inputSchema ${percent(c.schemaBytes, c.bytes)} of the bytes${peerC ? `; peer ${int(peerC.bytes)} bytes for ${int(peerC.tools)} tools` : ''}`,
      goal: '',
      status: '',
    });
    rows.push({
      area: AREA,
      what: 'bytes per tool (≈ tokens per tool)',
      spec: 'GitHub',
      value: `${int(perTool)} (≈ ${int(perTool / 4)})`,
      spread: 'deterministic',
      beside: `peer: ${int(PEER_QUOTED_BYTES_PER_TOOL)} (issue)${peerC ? `, ${int(peerPerTool)} re-measured here (${ratio(perTool / peerPerTool)} ours/peer)` : ''}`,
      goal: `< ${int(GOALS.bytesPerTool)}`,
      status: verdict(perTool < GOALS.bytesPerTool),
    });
    rows.push({ area: AREA, what: 'what each tool carries (ours)', spec: 'GitHub', value: describeCarried(c), spread: '', beside: '', goal: '', status: '' });
    if (peerC) rows.push({ area: AREA, what: 'what each tool carries (peer)', spec: 'GitHub', value: describeCarried(peerC), spread: '', beside: '', goal: '', status: '' });
  } catch (error) {
    problems.push(`tools/list payload: ${(error as Error).message}`);
    rows.push({ area: AREA, what: 'tools/list payload', spec: 'GitHub', value: 'failed', spread: '', beside: (error as Error).message.slice(0, 200), goal: '', status: 'FAILED' });
  } finally {
    if (server) await stopServer(server, context.results);
  }
}
