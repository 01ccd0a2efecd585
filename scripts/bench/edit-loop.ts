/**
 * The edit loop of a built project, as its user lives it: the plain `dotnet build` of a developer's machine, with the
 * shared compiler server and MSBuild's worker nodes on (this machine's environment turns both off for the other
 * builds: they are turned back on here). First a build from clean as a user's first one: build servers shut down,
 * bin/ and obj/ removed, restore included. Then one edit build, unmeasured, that warms the compiler server; then a
 * one-line edit of Program.cs, a small file of the user's own added, and nothing changed, each followed by a build.
 */
import { appendFileSync, existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { dotnetBuild } from './projects.js';

export interface EditLoop {
  /** From clean, with the build servers started by the build itself. */
  readonly clean: number;
  /** A build with nothing changed. */
  readonly noChange: number;
  /** After a one-line edit of Program.cs. */
  readonly programEdit: number;
  /** After adding a small .cs file of the user's own beside Program.cs. */
  readonly userFile: number;
  /**
   * Whether the generated code's assembly (Generated/bin/…) was left as it was by the edits' builds; undefined for a
   * project of one project.
   */
  readonly generatedKept?: boolean;
}

/** Seconds the edits' builds take over a build with nothing changed, at most: the goal. */
export const EDIT_GOAL_SECONDS = 2;

/** The environment of a developer's `dotnet build`: this machine's switches for the build servers removed. */
function developerEnvironment(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['UseSharedCompilation', 'MSBUILDDISABLENODEREUSE', 'DOTNET_CLI_USE_MSBUILD_SERVER']) delete env[name];
  return env;
}

/** Every bin/ and obj/ of the project folder (the host's and the generated project's). */
function removeOutputs(dir: string): void {
  for (const folder of ['', ...readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name)]) {
    for (const output of ['bin', 'obj']) rmSync(join(dir, folder, output), { recursive: true, force: true });
  }
}

/** The newest write time of the generated project's assemblies, or undefined when there is no such project. */
function generatedAssemblyTime(dir: string): number | undefined {
  const bin = join(dir, 'Generated', 'bin');
  if (!existsSync(bin)) return undefined;
  const dlls = (readdirSync(bin, { recursive: true }) as string[]).filter((f) => f.endsWith('.Generated.dll'));
  return dlls.length === 0 ? undefined : Math.max(...dlls.map((f) => statSync(join(bin, f)).mtimeMs));
}

/** The edit loop in `dir`, whose project has just been built (Debug); the reason when a build fails. */
export function editLoop(dir: string): EditLoop | { failure: string } {
  const env = developerEnvironment();
  const build = (): number => {
    const built = dotnetBuild(dir, [], undefined, env);
    if (!built.ok) throw new Error(built.error);
    return built.seconds;
  };
  const program = join(dir, 'Program.cs');
  try {
    spawnSync('dotnet', ['build-server', 'shutdown'], { env, stdio: 'ignore' });
    removeOutputs(dir);
    const clean = build();
    appendFileSync(program, '// warm-up edit: the compiler server is warm\n');
    build();
    const before = generatedAssemblyTime(dir);
    appendFileSync(program, '// an edit of the user\'s\n');
    const programEdit = build();
    writeFileSync(join(dir, 'UserNote.cs'), 'namespace UserCode;\n\n/// <summary>A class of the user\'s own.</summary>\npublic static class UserNote\n{\n    public const string Text = "mine";\n}\n');
    const userFile = build();
    const noChange = build();
    const after = generatedAssemblyTime(dir);
    return { clean, noChange, programEdit, userFile, ...(before !== undefined && { generatedKept: before === after }) };
  } catch (error) {
    return { failure: (error as Error).message.slice(0, 200) };
  } finally {
    // The servers started here would stay: the rest of the bench runs without them.
    spawnSync('dotnet', ['build-server', 'shutdown'], { env, stdio: 'ignore' });
  }
}
