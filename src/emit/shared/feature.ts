/**
 * One shape for every part of the generated host: the support files it adds (in `Mcp/`), its packages and embedded
 * files, its lines in either project file, its members of `McpSettings` (read from the settings and checked at start),
 * and its lines of Program.cs.
 * A feature adds itself to {@link HOST_FEATURES} (features.ts) and edits nothing else.
 */
import type { GeneratedFile } from './file.js';
import type { CSharpWriter } from './writer.js';
import type { HostOptions } from './host-options.js';

/** The folder of the support files, as the client is in `Client/`. */
export const SUPPORT_FOLDER = 'Mcp';

export interface Package {
  readonly id: string;
  readonly version: string;
}

/** A generated file embedded in the generated assembly, and the resource name its code reads it by. */
export interface EmbeddedFile {
  /** Its path from the host's folder. */
  readonly file: string;
  readonly name: string;
  /** Embedded when it exists (a project of an earlier generator may not have it). */
  readonly optional?: boolean;
}

/** A feature's part of `McpSettings` (McpSettings.g.cs). */
export interface SettingsPart {
  /** Its properties, each with its doc comment (the lines of the class body). */
  readonly members?: readonly string[];
  /**
   * Its lines of `Read`: they read and check its settings (`settings[...]`, `TryReadNumber`), `return null` after one
   * line on stderr when one is wrong, and set what the client and tools read; earlier features' locals are in scope.
   */
  readonly read?: (w: CSharpWriter) => void;
  /** Its members' values in the `McpSettings` that `Read` returns (`Name = local`). */
  readonly values?: readonly string[];
  /** Methods of its own in the class. */
  readonly methods?: (w: CSharpWriter) => void;
}

/** A feature's lines of Program.cs, by where they go (each a line of C#, comments included). */
export interface ProgramPart {
  /** Before the builder: another use of the same program (an interpreter process, a build step). */
  readonly first?: readonly string[];
  /** On the builder, after the settings: services. */
  readonly services?: readonly string[];
  /** In the `AddMcpServer()` chain, after the transport. */
  readonly server?: readonly string[];
  /** On the built app, before it runs: middleware and endpoints. */
  readonly app?: readonly string[];
}

export interface HostFeature {
  /** Whether a host with these options has it. */
  readonly applies: (options: HostOptions) => boolean;
  /** Its files: support files under {@link SUPPORT_FOLDER}, deployment files at the root. */
  readonly files?: (options: HostOptions, source: string, projectName: string) => readonly GeneratedFile[];
  /** Its packages: referenced by the generated code's project, and so by the host through it. */
  readonly packages?: (options: HostOptions) => readonly Package[];
  /** Its files embedded in the generated assembly. */
  readonly embedded?: (options: HostOptions) => readonly EmbeddedFile[];
  /** Its lines after the item groups of the host's project file (packing properties, build steps that run the server). */
  readonly project?: (options: HostOptions, projectName: string) => readonly string[];
  /** Its lines after the item groups of the generated code's project file (regeneration on build). */
  readonly generatedProject?: (options: HostOptions, projectName: string) => readonly string[];
  readonly settings?: (options: HostOptions) => SettingsPart;
  readonly program?: (options: HostOptions) => ProgramPart;
}

/** A support file's path: in the support folder. */
export const supportPath = (file: string): string => `${SUPPORT_FOLDER}/${file}`;
