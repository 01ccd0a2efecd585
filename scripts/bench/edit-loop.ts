/**
 * The edit loop of a built project, as its user lives it: after the build from clean, a `dotnet build` with nothing
 * changed, then after a one-line edit of Program.cs, then after a small file of the user's own is added. Each build
 * is the plain `dotnet build` (Debug, the shared compiler server as a user has it); one edit build first, unmeasured,
 * starts that server.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dotnetBuild } from './projects.js';

export interface EditLoop {
  /** A build with nothing changed. */
  readonly noChange: number;
  /** After a one-line edit of Program.cs. */
  readonly programEdit: number;
  /** After adding a small .cs file of the user's own beside Program.cs. */
  readonly userFile: number;
}

/** Seconds the edits' builds take over a build with nothing changed, at most: the goal. */
export const EDIT_GOAL_SECONDS = 2;

/** The edit loop in `dir`, whose project has just been built from clean (Debug); the reason when a build fails. */
export function editLoop(dir: string): EditLoop | { failure: string } {
  const build = (): number => {
    const built = dotnetBuild(dir, []);
    if (!built.ok) throw new Error(built.error);
    return built.seconds;
  };
  const program = join(dir, 'Program.cs');
  try {
    appendFileSync(program, '// warm-up edit: the compiler server starts\n');
    build();
    appendFileSync(program, '// an edit of the user\'s\n');
    const programEdit = build();
    writeFileSync(join(dir, 'UserNote.cs'), 'namespace UserCode;\n\n/// <summary>A class of the user\'s own.</summary>\npublic static class UserNote\n{\n    public const string Text = "mine";\n}\n');
    const userFile = build();
    const noChange = build();
    return { noChange, programEdit, userFile };
  } catch (error) {
    return { failure: (error as Error).message.slice(0, 200) };
  }
}
