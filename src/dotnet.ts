import { execFileSync } from 'node:child_process';

/** The MCP SDK supports .NET 8 and later. */
const MIN_MAJOR = 8;
export const FALLBACK_FRAMEWORK = 'net8.0';

/** The newest target framework the installed .NET SDK builds (`net10.0`), or the fallback without an SDK. */
export function detectFramework(): string {
  try {
    const output = execFileSync('dotnet', ['--list-sdks'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 30_000 });
    const majors = [...output.matchAll(/^(\d+)\.\d+\.\d+/gm)].map((m) => Number(m[1])).filter((m) => m >= MIN_MAJOR);
    return majors.length > 0 ? `net${Math.max(...majors)}.0` : FALLBACK_FRAMEWORK;
  } catch {
    return FALLBACK_FRAMEWORK;
  }
}
