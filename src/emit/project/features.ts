/**
 * The features of the generated host, in the order their settings are read and their lines appear in Program.cs
 * (a feature's settings may use those read before it: the base address, the authorization, the token exchange).
 */
import type { HostFeature } from '../shared/feature.js';
import { core } from './core.js';
import { clientParameters, longRunning } from './client-settings.js';
import { telemetry } from './telemetry.js';
import { confirm } from '../tools/confirm.js';
import { toolCatalog } from '../tools/tool-support.js';
import { discoveryMode } from '../discovery/discovery.js';
import { codeMode } from '../code/settings.js';
import { hybridSearch } from '../discovery/hybrid.js';
import { operationResources } from '../resources/resources.js';
import { httpAccess, httpEndpoints } from '../http/access.js';
import { authorization } from '../http/authorization.js';
import { httpLimits } from '../http/limits.js';
import { sharedState } from '../http/shared-state.js';
import { credentials } from './credentials.js';
import { emitDeployment } from './deploy.js';
import { emitServerJson, packageProjectLines } from './nuget.js';
import { emitUserProject, regenerationProjectLines } from './regenerate.js';
import { msbuildLiteral } from './msbuild.js';

/** HTTP: what deploys the server (Dockerfile, Kubernetes manifest). */
const deployment: HostFeature = {
  applies: (options) => options.transport === 'http',
  files: (options, _source, projectName) => emitDeployment(options, projectName),
};

/** stdio: packed as a NuGet MCP server (`dotnet pack`), with its server.json. */
const nugetPackage: HostFeature = {
  applies: (options) => options.package !== undefined,
  files: (options) => (options.package ? [emitServerJson(options, options.package)] : []),
  project: (options) => (options.package ? packageProjectLines(options.package, msbuildLiteral) : []),
};

/** The build regenerates the client and tools when the spec changes, with the generator the machine-local file names. */
const regeneration: HostFeature = {
  applies: (options) => options.regenerate !== undefined,
  files: (options, _source, projectName) => (options.regenerate?.localGenerator !== undefined ? [emitUserProject(projectName, options.regenerate.localGenerator, msbuildLiteral)] : []),
  generatedProject: (options, projectName) => (options.regenerate ? regenerationProjectLines(options.regenerate, projectName, msbuildLiteral) : []),
};

export const HOST_FEATURES: readonly HostFeature[] = [
  core, clientParameters, longRunning, telemetry, sharedState, confirm, toolCatalog, discoveryMode, codeMode, hybridSearch, operationResources,
  httpAccess, authorization, httpLimits, httpEndpoints, credentials, deployment, nugetPackage, regeneration,
];
