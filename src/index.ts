/** Library API: load → model → names → emit. Files come back in memory; only the CLI writes them. */
export { prepare, generateClient, generateTools, generateHost, generateProject, projectName } from './generate.js';
export { selectOperations, matches } from './select.js';
export type { Selection, Skipped } from './select.js';
export type { PreparedApi, ToolsOptions, HostProjectOptions, ProjectOptions, GeneratedFile } from './generate.js';
export { GeneratorError, EXIT_CODES } from './errors.js';
export type { Diagnostic, ErrorKind } from './errors.js';
export { loadSpec } from './load/document.js';
export { buildModel } from './model/build.js';
export { planNames } from './names/plan.js';
export type { NamePlan, OperationNames } from './names/plan.js';
export type * from './model/types.js';
export { serverKey, PACKAGES } from './emit/project/host.js';
export type { Launch } from './emit/project/config.js';
export { environmentVariables, credentialVariables } from './names/environment.js';
export { writeFiles } from './write.js';
export { runCli } from './cli.js';
export { bundle } from './bundle.js';
export type { Bundle, BundleOptions } from './bundle.js';
