/**
 * What deploys an HTTP server: a Dockerfile (multi-stage, official .NET images, non-root, health check) and a
 * Kubernetes manifest (a Deployment of two replicas probed on /healthz, and a Service in front; with `--redis`, Redis
 * for their shared state and a HorizontalPodAutoscaler that scales them).
 */
import { GENERATED_FOLDER } from './layout.js';
import type { GeneratedFile } from '../shared/file.js';
import type { HostOptions } from '../shared/host-options.js';
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
    { path: '.dockerignore', content: ['bin/', 'obj/', '**/bin/', '**/obj/', 'nupkg/', '.vs/', '.vscode/', '**/*.user', ''].join('\n') },
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
    ...(options.redis ? [
      '# Replicas that share each caller\'s limits, the tokens and the operation key through Redis (see README.md):',
      `#   docker network create ${name} && docker run -d --network ${name} --name ${name}-redis ${REDIS_IMAGE}`,
      `#   docker run --network ${name} -p 8080:${CONTAINER_PORT} -e ${environmentVariables(options.serverName).baseUrl}=https://… -e ${environmentVariables(options.serverName).redis}=${name}-redis:${REDIS_PORT} ${name}`,
    ] : []),
    '',
    `FROM mcr.microsoft.com/dotnet/sdk:${version} AS build`,
    'WORKDIR /src',
    '# The project files first: the restore is its own layer, done again only when they change.',
    'COPY *.csproj ./',
    `COPY ${GENERATED_FOLDER}/*.csproj ./${GENERATED_FOLDER}/`,
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
    options.redis
      ? `# The ${name} MCP server on Kubernetes: stateless replicas (any replica answers any request), two to ten as their CPU asks, a Service in front, and Redis for what they share.`
      : `# The ${name} MCP server on Kubernetes: two stateless replicas (any replica answers any request), a Service in front.`,
    `#   docker build -t ${image} .   (push it where the cluster pulls from, and set image: below)`,
    `#   kubectl create secret generic ${name}-settings --from-literal=${env.baseUrl}=https://…${secrets.map((s) => ` --from-literal=${s}=…`).join('')}`,
    '#   kubectl apply -f kubernetes.yaml',
    ...(options.forwardAuth === undefined ? [] : [`# Each caller sends their own API credential in the ${options.forwardAuth} header of their MCP requests.`]),
    `# Add --from-literal=${env.allowedHosts}=mcp.example.com (the names clients use): until it lists them, the server answers any Host.`,
    ...(options.redis ? [
      `# Each caller's rate limit and script share, the tokens obtained for the API and the operation key are on the Redis below (${env.redis}),`,
      '# one set for all the replicas however many there are. For a Redis of your own (Azure Cache for Redis, ElastiCache, Memorystore),',
      `# delete the Redis Deployment, Service and NetworkPolicy and set ${env.redis} below to its connection string (host:port,password=…,ssl=true).`,
    ] : []),
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata:',
    `  name: ${name}`,
    `  labels: { app: ${name} }`,
    'spec:',
    ...(options.redis ? ['  # The HorizontalPodAutoscaler below sets the number of replicas.'] : ['  replicas: 2']),
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
    ...(options.redis ? [
      '          env:',
      `            - { name: ${env.redis}, value: "${name}-redis:${REDIS_PORT}" }`,
    ] : []),
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
    ...(options.redis ? redisManifest(name) : []),
    '',
  ].join('\n');
}

/** The Redis image and port of `--redis`'s manifest: the official image, its default port. */
const REDIS_IMAGE = 'redis:7-alpine';
const REDIS_PORT = 6379;

/** Redis for the replicas (only they may reach it), and the autoscaler that sets how many replicas there are. */
function redisManifest(name: string): string[] {
  const redis = `${name}-redis`;
  return [
    '---',
    `# Redis for what the replicas share. It keeps nothing on disk: after a restart each caller's bucket starts full, tokens are`,
    '# fetched again, and the replicas agree on a key again (a running operation\'s token made before may need a new call).',
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata:',
    `  name: ${redis}`,
    `  labels: { app: ${redis} }`,
    'spec:',
    '  replicas: 1',
    '  selector:',
    `    matchLabels: { app: ${redis} }`,
    '  template:',
    '    metadata:',
    `      labels: { app: ${redis} }`,
    '    spec:',
    '      # The official image\'s redis user.',
    '      securityContext: { runAsNonRoot: true, runAsUser: 999 }',
    '      containers:',
    '        - name: redis',
    `          image: ${REDIS_IMAGE}`,
    '          args: ["--save", "", "--appendonly", "no"]',
    '          ports:',
    `            - { name: redis, containerPort: ${REDIS_PORT} }`,
    '          readinessProbe:',
    '            exec: { command: ["redis-cli", "ping"] }',
    '            periodSeconds: 5',
    '          resources:',
    '            requests: { cpu: 50m, memory: 64Mi }',
    '            limits: { memory: 256Mi }',
    '---',
    'apiVersion: v1',
    'kind: Service',
    'metadata:',
    `  name: ${redis}`,
    'spec:',
    `  selector: { app: ${redis} }`,
    '  ports:',
    `    - { name: redis, port: ${REDIS_PORT}, targetPort: redis }`,
    '---',
    '# Only the server\'s pods reach Redis.',
    'apiVersion: networking.k8s.io/v1',
    'kind: NetworkPolicy',
    'metadata:',
    `  name: ${redis}`,
    'spec:',
    `  podSelector: { matchLabels: { app: ${redis} } }`,
    '  policyTypes: [Ingress]',
    '  ingress:',
    `    - from: [{ podSelector: { matchLabels: { app: ${name} } } }]`,
    `      ports: [{ port: ${REDIS_PORT} }]`,
    '---',
    '# From two to ten replicas, as their CPU asks: the limits hold whatever the number, since the replicas share them.',
    'apiVersion: autoscaling/v2',
    'kind: HorizontalPodAutoscaler',
    'metadata:',
    `  name: ${name}`,
    'spec:',
    `  scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: ${name} }`,
    '  minReplicas: 2',
    '  maxReplicas: 10',
    '  metrics:',
    '    - type: Resource',
    '      resource: { name: cpu, target: { type: Utilization, averageUtilization: 70 } }',
  ];
}
