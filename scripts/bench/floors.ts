/**
 * The floors of the serving-speed bench, built and started beside our server so that one run shows what is within
 * reach on the machine: a bare ASP.NET Core endpoint that answers a tools/call with the one API request (floors/Proxy.cs),
 * and the official SDK's stateless server with one bare tool making the same request (floors/SdkTool.cs). Each is
 * a Release build of its one file, on the SDK version the generated projects use.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HTTP_PACKAGES } from '../../src/emit/project/core.js';
import type { BenchContext } from './context.js';
import { dotnetBuild } from './projects.js';
import { freePort } from '../../test/support/replicas.js';

export type FloorName = 'proxy' | 'sdk';

export interface Floor {
  readonly name: FloorName;
  readonly url: string;
  readonly process: ChildProcess;
}

const FLOORS: Record<FloorName, { source: string; packages: string[] }> = {
  proxy: { source: 'Proxy.cs', packages: [] },
  sdk: { source: 'SdkTool.cs', packages: ['ModelContextProtocol.AspNetCore'] },
};

/** Builds the floor in `dir` (Release) and returns its dll. */
export function buildFloor(context: BenchContext, name: FloorName, dir: string): string {
  const { source, packages } = FLOORS[name];
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(context.paths.repo, 'scripts/bench/floors', source), join(dir, 'Program.cs'));
  const references = packages.map((id) => {
    const version = HTTP_PACKAGES.find((p) => p.id === id)?.version;
    if (!version) throw new Error(`no version of ${id} in the HTTP host's packages`);
    return `<PackageReference Include="${id}" Version="${version}" />`;
  });
  writeFileSync(join(dir, `Floor${name}.csproj`), [
    '<Project Sdk="Microsoft.NET.Sdk.Web">',
    `  <PropertyGroup><TargetFramework>${context.frameworks}</TargetFramework><Nullable>enable</Nullable><ImplicitUsings>enable</ImplicitUsings></PropertyGroup>`,
    `  <ItemGroup>${references.join('')}</ItemGroup>`,
    '</Project>',
    '',
  ].join('\n'));
  const built = dotnetBuild(dir, ['-c', 'Release']);
  if (!built.ok) throw new Error(`the ${name} floor did not build: ${built.error}`);
  const dll = join(dir, 'bin/Release', context.frameworks, `Floor${name}.dll`);
  if (!existsSync(dll)) throw new Error(`no ${dll} after the build`);
  return dll;
}

/** Starts a built floor in front of the API and waits for its /healthz. */
export async function startFloor(name: FloorName, dll: string, api: { url: string; key: string }): Promise<Floor> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn('dotnet', [dll, '--urls', url], { env: { ...process.env, FLOOR_API_URL: api.url, FLOOR_API_KEY: api.key }, stdio: 'ignore' });
  for (const deadline = Date.now() + 60_000; ; await new Promise((r) => setTimeout(r, 100))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the ${name} floor did not start (exit ${child.exitCode})`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return { name, url, process: child };
    } catch {
      // not listening yet
    }
  }
}

/** CPU time (user + system) a process has used so far, in ms, from /proc; NaN where /proc is not there. */
export function cpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
    // After the command's name: state is field 3, utime 14 and stime 15 (1-based, man 5 proc), in clock ticks (100/s).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}
