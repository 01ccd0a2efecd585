/**
 * What deploys an HTTP server: a Dockerfile (multi-stage, official .NET images, non-root, health check) and a
 * Kubernetes manifest (a Deployment of two replicas probed on /healthz, and a Service in front).
 */
import type { GeneratedFile } from '../shared/file.js';
import type { HostOptions } from './host-options.js';
import { kebabName } from '../../names/identifiers.js';
import { credentialVariables, environmentVariables, requiredVariables } from '../../names/environment.js';
import { HTTP_LIMITS } from '../http/limits.js';

/** Seconds a stopping pod keeps serving while the Service and its proxies stop sending to it (the preStop wait). */
export const PRE_STOP_SECONDS = 5;

/** The port the container listens on: the official ASP.NET Core images' own default (ASPNETCORE_HTTP_PORTS). */
export const CONTAINER_PORT = 8080;

export function emitDeployment(options: HostOptions, projectName: string): GeneratedFile[] {
  return [
    { path: 'Dockerfile', content: emitDockerfile(options, projectName) },
    { path: '.dockerignore', content: ['bin/', 'obj/', '**/bin/', '**/obj/', 'nupkg/', '.vs/', '.vscode/', '*.user', ''].join('\n') },
    { path: 'kubernetes.yaml', content: emitManifest(options) },
  ];
}

function emitDockerfile(options: HostOptions, projectName: string): string {
  const version = options.framework.replace(/^net/, '');
  const name = kebabName(options.serverName);
  return [
    `# The ${projectName} MCP server (Streamable HTTP at /mcp, health at /healthz) in a container.`,
    `#   docker build -t ${name} .`,
    `#   docker run -p 8080:${CONTAINER_PORT} -e ${environmentVariables(options.serverName).baseUrl}=https://… ${name}`,
    '',
    `FROM mcr.microsoft.com/dotnet/sdk:${version} AS build`,
    'WORKDIR /src',
    'COPY *.csproj ./',
    'RUN dotnet restore',
    'COPY . .',
    '# The image builds what is here: regeneration from the spec (see the .csproj) is for development builds.',
    'RUN dotnet publish --no-restore -c Release -o /app -p:OpenApiMcpRegenerate=false',
    '',
    `FROM mcr.microsoft.com/dotnet/aspnet:${version}`,
    'WORKDIR /app',
    'COPY --from=build /app .',
    '# The non-root user the official images define.',
    'USER $APP_UID',
    `ENV ASPNETCORE_HTTP_PORTS=${CONTAINER_PORT}`,
    `EXPOSE ${CONTAINER_PORT}`,
    '# The runtime image has no curl: bash asks /healthz itself.',
    'HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \\',
    `  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/\${ASPNETCORE_HTTP_PORTS%%[;,]*} && printf 'GET /healthz HTTP/1.0\\\\r\\\\nHost: localhost\\\\r\\\\n\\\\r\\\\n' >&3 && head -n 1 <&3 | grep -q ' 200 '"]`,
    `ENTRYPOINT ["dotnet", "${projectName}.dll"]`,
    '',
  ].join('\n');
}

function emitManifest(options: HostOptions): string {
  const name = kebabName(options.serverName);
  const env = environmentVariables(options.serverName);
  const secrets = options.securitySchemes.flatMap((scheme) => requiredVariables(credentialVariables(options.serverName, scheme)));
  const image = `${name}:${options.serverVersion.replace(/[^\w.-]/g, '-') || 'latest'}`;
  const probe = (path: string, period: number): string[] => [
    `            httpGet: { path: ${path}, port: http }`,
    `            periodSeconds: ${period}`,
  ];
  return [
    `# The ${name} MCP server on Kubernetes: two stateless replicas (any replica answers any request), a Service in front.`,
    `#   docker build -t ${image} .   (push it where the cluster pulls from, and set image: below)`,
    `#   kubectl create secret generic ${name}-settings --from-literal=${env.baseUrl}=https://…${secrets.map((s) => ` --from-literal=${s}=…`).join('')}`,
    '#   kubectl apply -f kubernetes.yaml',
    ...(options.forwardAuth === undefined ? [] : [`# Each caller sends their own API credential in the ${options.forwardAuth} header of their MCP requests.`]),
    `# Add --from-literal=${env.allowedHosts}=mcp.example.com (the names clients use): until it lists them, the server answers any Host.`,
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata:',
    `  name: ${name}`,
    `  labels: { app: ${name} }`,
    'spec:',
    '  replicas: 2',
    '  selector:',
    `    matchLabels: { app: ${name} }`,
    '  template:',
    '    metadata:',
    `      labels: { app: ${name} }`,
    '    spec:',
    '      securityContext: { runAsNonRoot: true }',
    `      # Stopping: ${PRE_STOP_SECONDS} s of preStop wait while the endpoints are updated, then SIGTERM: the server accepts no new`,
    `      # connection and finishes the calls in flight within ${env.drainSeconds} (${HTTP_LIMITS.drainSeconds} s); 5 s more before SIGKILL.`,
    `      # Raise this with ${env.drainSeconds}: the grace period counts the preStop wait and the drain.`,
    `      terminationGracePeriodSeconds: ${PRE_STOP_SECONDS + HTTP_LIMITS.drainSeconds + 5}`,
    '      containers:',
    `        - name: ${name}`,
    `          image: ${image}`,
    '          ports:',
    `            - { name: http, containerPort: ${CONTAINER_PORT} }`,
    '          # Settings and credentials (see README.md) from a Secret; without it the spec\'s base URL is used.',
    '          envFrom:',
    `            - secretRef: { name: ${name}-settings, optional: true }`,
    '          lifecycle:',
    `            preStop: { exec: { command: ["sleep", "${PRE_STOP_SECONDS}"] } }`,
    '          readinessProbe:',
    ...probe('/healthz', 5),
    '          livenessProbe:',
    ...probe('/healthz', 15),
    '            initialDelaySeconds: 10',
    '          resources:',
    '            requests: { cpu: 100m, memory: 128Mi }',
    '            limits: { memory: 512Mi }',
    '---',
    'apiVersion: v1',
    'kind: Service',
    'metadata:',
    `  name: ${name}`,
    'spec:',
    `  selector: { app: ${name} }`,
    '  ports:',
    '    - { name: http, port: 80, targetPort: http }',
    '',
  ].join('\n');
}
