import { execFile, execFileSync } from 'node:child_process';

/** The MCP SDK supports .NET 8 and later. */
const MIN_MAJOR = 8;
export const FALLBACK_FRAMEWORK = 'net8.0';

const LIST_SDKS = ['--list-sdks'];
const OPTIONS = { encoding: 'utf8', timeout: 30_000 } as const;

/** The newest target framework the installed .NET SDK builds (`net10.0`), or the fallback without an SDK. */
export function detectFramework(): string {
  try {
    return newestFramework(execFileSync('dotnet', LIST_SDKS, { ...OPTIONS, stdio: ['ignore', 'pipe', 'ignore'] }));
  } catch {
    return FALLBACK_FRAMEWORK;
  }
}

/** {@link detectFramework} without blocking: the command line starts it while it reads the spec. */
export function detectFrameworkAsync(): Promise<string> {
  return new Promise((resolve) => {
    execFile('dotnet', LIST_SDKS, OPTIONS, (error, stdout) => resolve(error ? FALLBACK_FRAMEWORK : newestFramework(stdout))).stdin?.end();
  });
}

function newestFramework(listSdks: string): string {
  const majors = [...listSdks.matchAll(/^(\d+)\.\d+\.\d+/gm)].map((m) => Number(m[1])).filter((m) => m >= MIN_MAJOR);
  return majors.length > 0 ? `net${Math.max(...majors)}.0` : FALLBACK_FRAMEWORK;
}
