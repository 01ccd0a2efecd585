/**
 * `npm run bench -- [--runs N] [--quick] [--only gen,server,call,payload,build,search,search-hybrid,scale,load,load-auth,load-redis,throughput,tasks,serving] [--calls N] [--no-profile] [--out FILE] [--keep]`
 *
 * The performance benchmark. Prints one markdown table (with the goals of the performance issue,
 * PASS/MISS) and short notes, and writes them with the machine they ran on to docs/benchmarks.md
 * (only for a full run, or with --out).
 *
 *  gen      generation, whole process (wall time, peak RSS) of `client`, `tools` and `init` on the
 *           petstore example, GitHub (api.github.com), Microsoft Graph and Graph beta, each beside a process that
 *           only parses the spec, and beside the peer generator openapi-mcp-generator@4.0.1
 *  server   generated server: process start to the first tools/list answer, and RSS, for
 *           `dotnet <dll>` (Release) and `dotnet run --project DIR` (the mcp.json form; Debug), and
 *           `dotnet run` with --no-restore and with --no-build, which shows where its time goes
 *  call     tool-call overhead: `get_pet` through the server vs a direct HTTP GET, same API, same process
 *  payload  tools/list size for GitHub, and what each tool carries, beside the peer's
 *  build    `dotnet build --no-restore` of the generated GitHub project (and the example), from clean
 *  search   discovery mode: recall@1/3/10 of the operation search over four query sets (fifteen real
 *           APIs: one set tuned on, one held out, two written blind), and tools/list bytes in both modes
 *  search-hybrid  --search hybrid: recall@1/3/10 lexical and hybrid of each query set through the built servers'
 *           own search, the build's embedding time, the model's load, a request's embedding, the fused search,
 *           and all of Graph hybrid: build, start, search round trips; published size
 *  scale    Microsoft Graph in both modes: init, dotnet build (time, peak memory), start to the first
 *           tools/list page, RSS, and 1,000 search_operations round trips
 *  load     HTTP transport under load: the shared.yaml `--transport http` server as two replicas
 *           behind nginx, --calls tool calls with 100 in flight (Streamable HTTP): calls/s, p50 and p99
 *           per call, RSS of each replica after the run, calls failed or wrong
 *  load-auth the same with --auth oauth: each replica validates every call's access token (oidc-provider),
 *           and what that costs a call beside the load figures
 *  load-redis the same with each caller's rate limit counted, first by each replica, then on Redis (REDIS), side by side
 *  throughput one replica's calls/s under wrk at 100 and 1,000 connections, beside the API alone and the peer's server
 *  tasks    multi-step tasks over a library API done as an ideal assistant would in operations, discovery
 *           and code mode: round trips and bytes sent to the assistant per task and mode
 *  serving  spec to serving, for petstore, GitHub and Microsoft Graph in Debug and Release: `init` into a fresh
 *           folder, `dotnet build` of it from clean (restore included; time, peak memory), start to the first
 *           tools/list answer, and their total; the size of the generated C# (all of it, and McpTools.g.cs)
 *
 * Every figure is the median of --runs runs (default 5, --quick 2); the things compared are run in the
 * same round, interleaved and in rotating order, because the machine is noisy.
 *
 * Each area is one module of scripts/bench/ (an Area: generation.ts, server-start.ts, tool-call.ts,
 * payload.ts, build.ts, search.ts, search-hybrid.ts, scale.ts, load.ts, load-auth.ts, load-redis.ts, throughput.ts, tasks.ts, serving.ts), listed below in the order it runs and reports.
 * They share one BenchContext (context.ts: options, specs, the generator snapshot, results) and the
 * helpers beside them: generator.ts (running a generation command), projects.ts (generated projects,
 * dotnet build), servers.ts (starting a generated server), deployment.ts (replicas behind nginx, for
 * load), prerequisites.ts, report.ts.
 */
import { rm } from 'node:fs/promises';
import type { Area } from './bench/area.js';
import { build } from './bench/build.js';
import { createContext } from './bench/context.js';
import { generation } from './bench/generation.js';
import { parseOptions } from './bench/options.js';
import { payload } from './bench/payload.js';
import { ensurePrerequisites } from './bench/prerequisites.js';
import { renderReport, writeReport } from './bench/report.js';
import { serverStart } from './bench/server-start.js';
import { toolCall } from './bench/tool-call.js';
import { search } from './bench/search.js';
import { searchHybrid } from './bench/search-hybrid.js';
import { scale } from './bench/scale.js';
import { load } from './bench/load.js';
import { loadAuth } from './bench/load-auth.js';
import { loadRedis } from './bench/load-redis.js';
import { throughput } from './bench/throughput.js';
import { tasks } from './bench/tasks.js';
import { loadScripts } from './bench/load-scripts.js';
import { serving } from './bench/serving.js';

/** The areas, in the order they run and appear in the table. */
const AREAS: readonly Area[] = [generation, serverStart, toolCall, payload, build, search, searchHybrid, scale, load, loadAuth, loadRedis, throughput, tasks, loadScripts, serving];

const options = parseOptions(AREAS.map((area) => area.name));
const context = await createContext(options);

let exitCode = 0;
try {
  const prerequisites = ensurePrerequisites(context, AREAS);
  for (const area of AREAS) if (options.selected.has(area.name)) await area.run(context, prerequisites);
} catch (error) {
  context.results.problems.push(`the benchmark itself failed: ${(error as Error).stack ?? String(error)}`);
  exitCode = 1;
}

const body = renderReport(context, AREAS);
process.stdout.write(`${body}\n`);
await writeReport(context, body);

if (!options.keep) await rm(context.work, { recursive: true, force: true });
else process.stderr.write(`Work folder kept: ${context.work}\n`);
process.exitCode = exitCode;
