/**
 * What `init --transport http` writes to deploy the server. Images cannot be pulled or built on these machines,
 * so this runs what can run here: the Dockerfile's own `dotnet` steps (restore, publish), the published server
 * started with the Dockerfile's environment, and its HEALTHCHECK command against it (up, then down); the
 * Kubernetes manifest is parsed and checked for what a Deployment and its Service need.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { runCli } from '../src/index.js';
import { detectFramework } from '../src/dotnet.js';
import { scratchDir } from './support/scratch.js';
import { freePort } from './support/replicas.js';
import { SHARED_SPEC } from './support/shared-api.js';

interface Dockerfile { from: string[]; run: string[]; env: Record<string, string>; user?: string; healthcheck?: string[]; entrypoint?: string[] }

/** The instructions of a Dockerfile this test needs, continuation lines joined. */
function parseDockerfile(text: string): Dockerfile {
  const lines = text.replace(/\\\n\s*/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
  const parsed: Dockerfile = { from: [], run: [], env: {} };
  for (const line of lines) {
    const [, instruction = '', rest = ''] = /^(\w+)\s+(.*)$/.exec(line) ?? [];
    if (instruction === 'FROM') parsed.from.push(rest);
    if (instruction === 'RUN') parsed.run.push(rest);
    if (instruction === 'USER') parsed.user = rest;
    if (instruction === 'ENV') {
      const [name = '', value = ''] = rest.split('=');
      parsed.env[name] = value;
    }
    if (instruction === 'ENTRYPOINT') parsed.entrypoint = JSON.parse(rest) as string[];
    if (instruction === 'HEALTHCHECK') parsed.healthcheck = JSON.parse(rest.slice(rest.indexOf('CMD ') + 4)) as string[];
  }
  return parsed;
}

describe('the Dockerfile and the Kubernetes manifest of an HTTP server', () => {
  const work = scratchDir('deploy');
  const project = join(work, 'shared');
  const published = join(work, 'app');
  let docker: Dockerfile;
  let server: ChildProcess | undefined;

  before(async () => {
    assert.equal(await runCli(['init', '--openapi-url', SHARED_SPEC, '--server-name', 'Shared', '--output-dir', project, '--transport', 'http'], { out: () => {}, err: () => {} }), 0);
    docker = parseDockerfile(await readFile(join(project, 'Dockerfile'), 'utf8'));
  });

  after(() => void server?.kill('SIGKILL'));

  test('builds with the official SDK image, runs on the ASP.NET Core one as its non-root user', () => {
    const version = detectFramework().replace(/^net/, '');
    assert.deepEqual(docker.from, [`mcr.microsoft.com/dotnet/sdk:${version} AS build`, `mcr.microsoft.com/dotnet/aspnet:${version}`]);
    assert.equal(docker.user, '$APP_UID');
    assert.deepEqual(docker.entrypoint, ['dotnet', 'Shared.dll']);
    assert.deepEqual(docker.env, { ASPNETCORE_HTTP_PORTS: '8080' });
  });

  test("the Dockerfile's dotnet steps publish a server that its HEALTHCHECK finds up, then down", async () => {
    // The build stage's steps, run in the project folder as in /src, publishing where the image copies from (/app).
    assert.deepEqual(docker.run.map((r) => r.split(' ').slice(0, 2).join(' ')), ['dotnet restore', 'dotnet publish']);
    for (const step of docker.run) {
      const [command = '', ...args] = step.split(' ').map((word) => (word === '/app' ? published : word));
      await promisify(execFile)(command, [...args, '-nologo', '-warnaserror'], { cwd: project, maxBuffer: 64 * 1024 * 1024 });
    }
    const env: NodeJS.ProcessEnv = { ...process.env, ...docker.env, ASPNETCORE_HTTP_PORTS: String(await freePort()) };
    delete env.ASPNETCORE_URLS;
    const [command = '', ...args] = docker.entrypoint ?? [];
    server = spawn(command, args, { cwd: published, env, stdio: 'ignore' });
    const check = (): number | null => spawnSync(docker.healthcheck?.[0] ?? '', docker.healthcheck?.slice(1) ?? [], { env, timeout: 5_000 }).status;
    const deadline = Date.now() + 30_000;
    while (check() !== 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    assert.equal(check(), 0, 'the health check never passed');
    server.kill('SIGKILL');
    await new Promise((r) => server?.once('exit', r));
    assert.notEqual(check(), 0, 'the health check passed with the server down');
  });

  test('the manifest is a Deployment of two or more replicas probed on /healthz, and a Service in front', async () => {
    const documents = parseAllDocuments(await readFile(join(project, 'kubernetes.yaml'), 'utf8'));
    for (const d of documents) assert.deepEqual(d.errors, []);
    const [deployment, service] = documents.map((d) => d.toJS() as Record<string, any>);
    assert.equal(deployment?.apiVersion, 'apps/v1');
    assert.equal(deployment?.kind, 'Deployment');
    assert.ok(deployment?.spec.replicas >= 2);
    assert.deepEqual(deployment?.spec.selector.matchLabels, deployment?.spec.template.metadata.labels);
    const [container] = deployment?.spec.template.spec.containers ?? [];
    assert.equal(container.image, 'shared:1.0.0');
    assert.deepEqual(container.ports, [{ name: 'http', containerPort: 8080 }]);
    for (const probe of [container.readinessProbe, container.livenessProbe]) assert.deepEqual(probe.httpGet, { path: '/healthz', port: 'http' });
    assert.equal(deployment?.spec.template.spec.securityContext.runAsNonRoot, true);
    assert.deepEqual(container.envFrom, [{ secretRef: { name: 'shared-settings', optional: true } }]);
    assert.equal(service?.kind, 'Service');
    assert.deepEqual(service?.spec.selector, deployment?.spec.selector.matchLabels);
    assert.deepEqual(service?.spec.ports, [{ name: 'http', port: 80, targetPort: 'http' }]);
    assert.equal(documents.length, 2, 'no Redis and no autoscaler without --redis');
    assert.equal(container.env, undefined);
  });

  test('with --redis: Redis, its Service and a policy that only the replicas reach it, the replicas given its address and scaled by a HorizontalPodAutoscaler', async () => {
    const withRedis = join(work, 'redis');
    assert.equal(await runCli(['init', '--openapi-url', SHARED_SPEC, '--server-name', 'Shared', '--output-dir', withRedis, '--transport', 'http', '--redis'], { out: () => {}, err: () => {} }), 0);
    const documents = parseAllDocuments(await readFile(join(withRedis, 'kubernetes.yaml'), 'utf8'));
    for (const d of documents) assert.deepEqual(d.errors, []);
    const objects = documents.map((d) => d.toJS() as Record<string, any>);
    const find = (kind: string, name: string): Record<string, any> | undefined => objects.find((o) => o.kind === kind && o.metadata.name === name);
    const server = find('Deployment', 'shared');
    assert.equal(server?.spec.replicas, undefined, 'the autoscaler sets the number of replicas');
    const [container] = server?.spec.template.spec.containers ?? [];
    assert.deepEqual(container.env, [{ name: 'SHARED_REDIS', value: 'shared-redis:6379' }]);
    const redis = find('Deployment', 'shared-redis');
    const [redisContainer] = redis?.spec.template.spec.containers ?? [];
    assert.match(redisContainer.image, /^redis:/);
    assert.deepEqual(redisContainer.ports, [{ name: 'redis', containerPort: 6379 }]);
    assert.deepEqual(find('Service', 'shared-redis')?.spec, { selector: redis?.spec.selector.matchLabels, ports: [{ name: 'redis', port: 6379, targetPort: 'redis' }] });
    const policy = find('NetworkPolicy', 'shared-redis');
    assert.deepEqual(policy?.spec.podSelector.matchLabels, redis?.spec.selector.matchLabels);
    assert.deepEqual(policy?.spec.ingress[0].from, [{ podSelector: { matchLabels: server?.spec.selector.matchLabels } }]);
    const autoscaler = find('HorizontalPodAutoscaler', 'shared');
    assert.equal(autoscaler?.apiVersion, 'autoscaling/v2');
    assert.deepEqual(autoscaler?.spec.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shared' });
    assert.ok(autoscaler?.spec.minReplicas >= 2 && autoscaler?.spec.maxReplicas > autoscaler?.spec.minReplicas);
    assert.ok(container.resources.requests.cpu, 'CPU utilization needs a CPU request');
    assert.match(await readFile(join(withRedis, 'Dockerfile'), 'utf8'), /-e SHARED_REDIS=shared-redis:6379/);
    assert.match(await readFile(join(withRedis, 'README.md'), 'utf8'), /`SHARED_REDIS`/);
    let errors = '';
    assert.equal(await runCli(['init', '--openapi-url', SHARED_SPEC, '--server-name', 'Shared', '--output-dir', join(work, 'stdio'), '--redis'], { out: () => {}, err: (t: string) => void (errors += t) }), 2);
    assert.match(errors, /--redis needs --transport http/);
  });
});
