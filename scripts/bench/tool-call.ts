/**
 * 3. Tool-call overhead: `get_pet` through the generated petstore server vs a direct HTTP GET of
 * the same API from the same process, alternating one by one.
 */
import http from 'node:http';
import { startPetstoreApi } from '../../examples/petstore-api.js';
import type { Area } from './area.js';
import type { BenchContext } from './context.js';
import { median, ms, percentile, range } from './lib.js';
import { project } from './projects.js';
import { straddles, verdict } from './results.js';
import { startServer, stopServer, type Started } from './servers.js';

const GOALS = { callOverheadMs: 1 } as const;
const AREA = '3 tool call';

export const toolCall: Area = {
  name: 'call',
  corpus: false,
  peer: false,
  run: (context) => benchToolCall(context),
  method: ({ options }) =>
    `Tool call: the Release server, pointed at examples/petstore-api.ts on 127.0.0.1; ${options.runs} × ${options.calls} sequential \`get_pet\` calls and as many direct keep-alive GETs of the same URL from the bench process, alternating one by one, after 200 warm-up pairs. Both go over loopback to the same API, so the difference is what the MCP hop adds (stdio JSON-RPC, tool dispatch, C# client, serialization).`,
};

async function benchToolCall(context: BenchContext): Promise<void> {
  const { log, options, results } = context;
  const { runs, calls } = options;
  const p = await project(context, 'petstore', true, false);
  const what = 'tool call `get_pet {petId:1}` vs direct HTTP GET';
  if (p.error || !p.releaseDll) {
    results.rows.push({ area: AREA, what, spec: 'petstore', value: 'failed', spread: '', beside: p.error ?? '', goal: '', status: 'FAILED' });
    return;
  }
  const api = await startPetstoreApi({ host: '127.0.0.1' });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const url = `${api.url}/pets/1`;
  const httpGet = (): Promise<string> =>
    new Promise((resolve, reject) => {
      http
        .get(url, { agent }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`HTTP ${res.statusCode}`))));
        })
        .on('error', reject);
    });
  let server: Started | undefined;
  try {
    server = await startServer('dotnet', [p.releaseDll], p.dir, { [p.baseUrlVariable]: api.url });
    const client = server.client;
    let wrong = 0;
    let sample = '';
    const callTool = async (): Promise<void> => {
      const result = await client.callTool({ name: 'get_pet', arguments: { petId: 1 } });
      const text = (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');
      if (!text.includes('"Rex"')) {
        wrong++;
        sample = text.slice(0, 200);
      }
    };
    log('tool call: warm-up');
    for (let i = 0; i < 200; i++) {
      await callTool();
      await httpGet();
    }
    const toolTimes: number[][] = [];
    const httpTimes: number[][] = [];
    for (let round = 0; round < runs; round++) {
      const tool: number[] = [];
      const direct: number[] = [];
      for (let i = 0; i < calls; i++) {
        // Alternate which goes first, so neither always follows the other.
        const pair = i % 2 === 0 ? (['tool', 'http'] as const) : (['http', 'tool'] as const);
        for (const kind of pair) {
          const started = performance.now();
          if (kind === 'tool') await callTool();
          else await httpGet();
          (kind === 'tool' ? tool : direct).push(performance.now() - started);
        }
      }
      api.requests.length = 0;
      toolTimes.push(tool);
      httpTimes.push(direct);
      log(`tool call round ${round + 1}/${runs}: tool ${median(tool).toFixed(3)} ms, http ${median(direct).toFixed(3)} ms`);
    }
    if (wrong > 0) results.problems.push(`get_pet answered without the pet ${wrong} times, e.g. ${JSON.stringify(sample)}`);
    report(context, toolTimes, httpTimes);
  } catch (error) {
    results.problems.push(`tool call: ${(error as Error).message}`);
    results.rows.push({ area: AREA, what, spec: 'petstore', value: 'failed', spread: '', beside: (error as Error).message.slice(0, 200), goal: `< ${GOALS.callOverheadMs} ms`, status: 'FAILED' });
  } finally {
    if (server) await stopServer(server, results);
    agent.destroy();
    await api.close();
  }
}

/** The rows: tool call, direct GET, and the difference with its goal. */
function report({ options, results }: BenchContext, toolTimes: number[][], httpTimes: number[][]): void {
  const allTool = toolTimes.flat();
  const allHttp = httpTimes.flat();
  const differences = toolTimes.map((t, i) => median(t) - median(httpTimes[i] ?? []));
  const overhead = median(allTool) - median(allHttp);
  const n = `${options.runs} × ${options.calls} calls each, interleaved`;
  results.rows.push({
    area: AREA,
    what: 'MCP tool call `get_pet {petId:1}` (client → server → API)',
    spec: 'petstore',
    value: `${ms(median(allTool), 3)} median, p99 ${ms(percentile(allTool, 99), 3)}`,
    spread: `run medians ${range(toolTimes.map(median), (v) => ms(v, 3))}`,
    beside: n,
    goal: '',
    status: '',
  });
  results.rows.push({
    area: AREA,
    what: 'direct HTTP GET `/pets/1` (keep-alive, same process)',
    spec: 'petstore',
    value: `${ms(median(allHttp), 3)} median, p99 ${ms(percentile(allHttp, 99), 3)}`,
    spread: `run medians ${range(httpTimes.map(median), (v) => ms(v, 3))}`,
    beside: n,
    goal: '',
    status: '',
  });
  results.rows.push({
    area: AREA,
    what: 'overhead of the MCP tool (median − median)',
    spec: 'petstore',
    value: ms(overhead, 3),
    spread: `per run ${range(differences, (v) => ms(v, 3))}`,
    beside: `p99 difference ${ms(percentile(allTool, 99) - percentile(allHttp, 99), 3)}`,
    goal: `< ${GOALS.callOverheadMs} ms median`,
    status: verdict(overhead < GOALS.callOverheadMs),
    borderline: straddles(differences, GOALS.callOverheadMs - 1e-9),
  });
}
