/**
 * The two projects of a generated server. The host, `<Name>.csproj` at the root, holds Program.cs and the user's own
 * code. The generated code (McpTools.g.cs, the client, the support files in Mcp/ and the embedded schemas) compiles in
 * a project of its own, `Generated/<Name>.Generated.csproj`, which the host references: an edit of the user's code
 * compiles the host alone, however big the API. The generated files stay where they are written, beside the host's
 * project file; the generated project sits in a folder of its own because two projects cannot share one obj/.
 */
import { SUPPORT_FOLDER } from '../shared/feature.js';

/** The folder of the generated code's project file (its bin/ and obj/ go there too). */
export const GENERATED_FOLDER = 'Generated';

/** The generated code's project and assembly name. */
export const generatedProjectName = (projectName: string): string => `${projectName}.Generated`;

/** The generated code's project file, relative to the host's folder. */
export const generatedProjectFile = (projectName: string): string => `${GENERATED_FOLDER}/${generatedProjectName(projectName)}.csproj`;

/**
 * The files the generated project compiles, as globs from the host's folder: every `*.g.cs` (McpTools.g.cs and the
 * files written with it, the client wherever its folder is) but the host's build output, and the support files.
 */
export const GENERATED_SOURCES: readonly { readonly include: string; readonly exclude?: readonly string[] }[] = [
  { include: '**/*.g.cs', exclude: ['bin/**', 'obj/**', `${GENERATED_FOLDER}/**`, `${SUPPORT_FOLDER}/**`] },
  { include: `${SUPPORT_FOLDER}/**/*.cs` },
];
