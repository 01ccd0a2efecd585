/**
 * The shared deployment the load area measures, set up as test/http-transport.test.ts sets it up: the HTTP-transport
 * project of test/fixtures/shared.yaml (`init --transport http --forward-auth X-Api-Token`), built in Release, run
 * as two replicas (`dotnet Shared.dll --urls …`) behind nginx round-robin on 127.0.0.1, in front of the test API
 * (test/support/shared-api.ts, test/support/replicas.ts).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nginxBinary, startNginx, startReplica, type Balancer, type Replica } from '../../test/support/replicas.js';
import { sharedInitArgs, sharedReplicaEnv, startSharedApi, type SharedApi } from '../../test/support/shared-api.js';
import type { BenchContext } from './context.js';
import { firstErrorLine, reap } from './lib.js';
import { dotnetBuild } from './projects.js';

export const REPLICAS = ['a', 'b'] as const;

export interface Deployment {
  readonly api: SharedApi;
  readonly replicas: readonly Replica[];
  readonly balancer: Balancer;
  /** `nginx/1.22.1`. */
  readonly nginxVersion: string;
  /** Server or workstation GC, as the built runtimeconfig.json sets it. */
  readonly gc: string;
}

/** `init` of the shared.yaml HTTP project into the work folder and `dotnet build -c Release`: its dll, or why not. */
export function buildSharedProject(context: BenchContext, variant: { folder: string; args: readonly string[] } = { folder: 'load', args: [] }): { dll: string } | { error: string } {
  const { generator, frameworks, log, results, work, paths } = context;
  const dir = join(work, variant.folder, 'shared');
  log(`init shared.yaml --transport http ${variant.args.join(' ')} project`);
  const init = spawnSync(process.execPath, [generator.cli, ...sharedInitArgs(dir), ...variant.args, '--framework', frameworks], { cwd: paths.repo, encoding: 'utf8' });
  if (init.status !== 0) return { error: `init exit ${init.status}: ${firstErrorLine(init.stderr ?? '')}` };
  log('dotnet build -c Release shared.yaml project (not timed)');
  const built = dotnetBuild(dir, ['-c', 'Release']);
  if (!built.ok) return { error: `dotnet build -c Release failed: ${built.error}` };
  results.notes.push(`Setup: \`dotnet build -c Release\` of the shared.yaml HTTP project${variant.args.length > 0 ? ` (${variant.args.join(' ')})` : ''} (restore included, not timed) took ${built.seconds.toFixed(0)} s.`);
  const dll = join(dir, 'bin/Release', frameworks, 'Shared.dll');
  return existsSync(dll) ? { dll } : { error: `no ${dll} after the build` };
}

/** The API, the replicas (logging at Warning) and nginx in front; what started is stopped again if a later step fails. */
export async function startDeployment(context: BenchContext, dll: string, front?: { port?: number; folder?: string; settings: Record<string, string> }): Promise<Deployment> {
  const api = await startSharedApi();
  const replicas: Replica[] = [];
  try {
    for (const name of REPLICAS) replicas.push(await startReplica(name, dll, { ...sharedReplicaEnv(name, api.url, 'Warning'), ...front?.settings }));
    const balancer = await startNginx(join(context.work, front?.folder ?? (front ? 'load-auth' : 'load'), 'nginx'), replicas.map((r) => r.url), front?.port);
    return { api, replicas, balancer, nginxVersion: nginxVersion(), gc: gcMode(dll) };
  } catch (error) {
    await stopReplicas(replicas);
    await api.close();
    throw error;
  }
}

export async function stopDeployment(deployment: Deployment): Promise<void> {
  deployment.balancer.stop();
  await stopReplicas(deployment.replicas);
  await deployment.api.close();
}

/** SIGTERM, then SIGKILL after 5 s for any still there. */
async function stopReplicas(replicas: readonly Replica[]): Promise<void> {
  for (const replica of replicas) replica.process.kill('SIGTERM');
  await reap(replicas.map((r) => r.process.pid ?? -1).filter((pid) => pid > 0));
}

function nginxVersion(): string {
  const probe = spawnSync(nginxBinary(), ['-v'], { encoding: 'utf8' });
  return /nginx\/\S+/.exec(`${probe.stdout}${probe.stderr}`)?.[0] ?? 'nginx (version unknown)';
}

function gcMode(dll: string): string {
  try {
    const config = JSON.parse(readFileSync(dll.replace(/\.dll$/, '.runtimeconfig.json'), 'utf8')) as { runtimeOptions?: { configProperties?: Record<string, unknown> } };
    return config.runtimeOptions?.configProperties?.['System.GC.Server'] === true ? 'server GC' : 'workstation GC';
  } catch {
    return 'GC mode unknown';
  }
}
