/**
 * The Azure stand-ins themselves, driven with plain fetch (no generator): the ARM stand-in checks api-version
 * and the subscription, pages through nextLink to the end and refuses a $skiptoken it did not issue, runs a
 * long-running PUT to Succeeded through Azure-AsyncOperation and a DELETE to 204 through Location, and the
 * Graph stand-in pages through @odata.nextLink; a token printed by the fake `az`, run as Azure.Identity runs
 * it (`/bin/sh -c "az account get-access-token ..."` in /bin/), is accepted for its audience only.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { API_VERSION, GRAPH_SPEC, SUBSCRIPTIONS, WIDGETS_SPEC, startAzureApi, type AzureApi } from './support/azure-api.js';
import { ARM_RESOURCE, GRAPH_RESOURCE, mintToken, tokenClaims, writeFakeAz, type FakeAz } from './support/fake-az.js';
import { scratchDir } from './support/scratch.js';

const run = promisify(execFile);
const [SUB] = SUBSCRIPTIONS;
const RG = `/subscriptions/${SUB}/resourceGroups/widgets-rg/providers/Microsoft.Widgets/widgets`;

describe('Azure stand-ins', () => {
  let folder = '';
  let az: FakeAz;
  let api: AzureApi;
  let armToken = '';
  let graphToken = '';

  const call = (url: string, init: RequestInit & { token?: string } = {}): Promise<Response> => {
    const { token = armToken, ...rest } = init;
    return fetch(url.startsWith('http') ? url : `${api.url}${url}`, {
      ...rest,
      headers: { authorization: `Bearer ${token}`, ...(rest.body ? { 'content-type': 'application/json' } : {}), ...(rest.headers as Record<string, string> | undefined) },
    });
  };
  const json = async (response: Response): Promise<Record<string, unknown>> => (await response.json()) as Record<string, unknown>;

  before(async () => {
    folder = scratchDir('azure');
    az = writeFakeAz(folder);
    api = await startAzureApi({ tokenSecret: az.secret, retryAfterSeconds: 0 });
    armToken = mintToken(az.secret, ARM_RESOURCE);
    graphToken = mintToken(az.secret, GRAPH_RESOURCE);
  });

  after(async () => {
    await api?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  test('the documents are what the stand-in serves', () => {
    const widgets = JSON.parse(readFileSync(WIDGETS_SPEC, 'utf8')) as { swagger: string; info: { version: string }; parameters: Record<string, Record<string, unknown>> };
    assert.equal(widgets.swagger, '2.0');
    assert.equal(widgets.info.version, API_VERSION);
    assert.equal(widgets.parameters.ApiVersionParameter?.['x-ms-parameter-location'], 'client');
    const graph = parse(readFileSync(GRAPH_SPEC, 'utf8')) as { paths: Record<string, { get?: Record<string, unknown> }> };
    assert.deepEqual(graph.paths['/users']?.get?.['x-ms-pageable'], { nextLinkName: '@odata.nextLink', operationName: 'listMore' });
  });

  test('ARM checks the api-version and the subscription', async () => {
    let response = await call(`${RG}/alpha`);
    assert.equal(response.status, 400);
    assert.equal(((await json(response)).error as { code: string }).code, 'MissingApiVersionParameter');
    response = await call(`${RG}/alpha?api-version=2023-01-01`);
    assert.equal(response.status, 400);
    assert.deepEqual(await json(response), { error: { code: 'InvalidApiVersionParameter', message: `The api-version '2023-01-01' is invalid. The supported versions are '${API_VERSION}'.` } });
    response = await call(`${RG.replace(SUB, '00000000-0000-0000-0000-0000000000ff')}/alpha?api-version=${API_VERSION}`);
    assert.equal(response.status, 404);
    assert.equal(((await json(response)).error as { code: string }).code, 'SubscriptionNotFound');
    response = await call(`${RG}/alpha?api-version=${API_VERSION}`);
    assert.equal(response.status, 200);
    const widget = await json(response);
    assert.equal(widget.id, `${RG}/alpha`);
    assert.equal((widget.properties as { provisioningState: string }).provisioningState, 'Succeeded');
    response = await call(`${RG}/nothing?api-version=${API_VERSION}`);
    assert.equal(response.status, 404);
    assert.equal(((await json(response)).error as { code: string }).code, 'ResourceNotFound');
  });

  test('ARM lists page by nextLink to the end; a $skiptoken it did not issue is refused', async () => {
    const names: string[] = [];
    let next: string | undefined = `${RG}?api-version=${API_VERSION}`;
    let pages = 0;
    while (next) {
      const response = await call(next);
      assert.equal(response.status, 200);
      const page = (await json(response)) as { value: { name: string }[]; nextLink?: string };
      assert.ok(page.value.length <= 2);
      names.push(...page.value.map((w) => w.name));
      next = page.nextLink;
      if (next) {
        const link = new URL(next);
        assert.equal(link.origin, api.url);
        assert.equal(link.pathname, RG);
        assert.equal(link.searchParams.get('api-version'), API_VERSION);
        assert.ok(link.searchParams.get('$skiptoken'));
      }
      pages++;
    }
    assert.equal(pages, 3);
    assert.deepEqual(names, ['alpha', 'bravo', 'charlie', 'delta', 'echo']);
    const forged = await call(`${RG}?api-version=${API_VERSION}&$skiptoken=bm90LWlzc3VlZA`);
    assert.equal(forged.status, 400);
    const subscriptionWide = (await json(await call(`/subscriptions/${SUB}/providers/Microsoft.Widgets/widgets?api-version=${API_VERSION}`))) as { nextLink?: string };
    assert.ok(subscriptionWide.nextLink?.startsWith(`${api.url}/subscriptions/${SUB}/providers/Microsoft.Widgets/widgets?`));
    const operations = (await json(await call(`/providers/Microsoft.Widgets/operations?api-version=${API_VERSION}`))) as { value: unknown[]; nextLink?: string };
    assert.ok(operations.value.length > 0);
    assert.equal(operations.nextLink, undefined);
  });

  test('a long-running PUT answers 201 Creating and, polled through Azure-AsyncOperation, ends Succeeded', async () => {
    const created = await call(`${RG}/golf?api-version=${API_VERSION}`, { method: 'PUT', body: JSON.stringify({ location: 'westeurope', tags: { team: 'a' }, properties: { color: 'green', size: 3 } }) });
    assert.equal(created.status, 201);
    assert.equal(((await json(created)).properties as { provisioningState: string }).provisioningState, 'Creating');
    assert.equal(created.headers.get('retry-after'), '0');
    const status = created.headers.get('azure-asyncoperation') ?? '';
    assert.match(status, new RegExp(`^${api.url}/subscriptions/${SUB}/providers/Microsoft.Widgets/locations/westeurope/operationStatuses/[0-9a-f-]+\\?api-version=${API_VERSION}$`));
    assert.equal(api.widget(SUB, 'widgets-rg', 'golf')?.properties.provisioningState, 'Creating');
    const seen: string[] = [];
    for (let i = 0; i < 5; i++) {
      const poll = (await json(await call(status))) as { status: string; name: string };
      seen.push(poll.status);
      if (poll.status !== 'InProgress') break;
    }
    assert.deepEqual(seen, ['InProgress', 'InProgress', 'Succeeded']);
    const widget = await json(await call(`${RG}/golf?api-version=${API_VERSION}`));
    assert.equal((widget.properties as { provisioningState: string }).provisioningState, 'Succeeded');
    assert.equal(api.widget(SUB, 'widgets-rg', 'golf')?.properties.provisioningState, 'Succeeded');

    // A color the test rejects: accepted at once, then Failed with the error.
    api.control.rejectedColors.add('blue');
    api.control.pollsBeforeDoneFor.set('hotel', 0);
    const rejected = await call(`${RG}/hotel?api-version=${API_VERSION}`, { method: 'PUT', body: JSON.stringify({ location: 'westeurope', properties: { color: 'blue' } }) });
    assert.equal(rejected.status, 201);
    const failed = (await json(await call(rejected.headers.get('azure-asyncoperation') ?? ''))) as { status: string; error: { code: string } };
    assert.equal(failed.status, 'Failed');
    assert.equal(failed.error.code, 'WidgetColorNotAllowed');
    assert.equal(api.widget(SUB, 'widgets-rg', 'hotel')?.properties.provisioningState, 'Failed');
  });

  test('a long-running DELETE answers 202 and, polled through Location, 204 once the widget is gone', async () => {
    const accepted = await call(`${RG}/bravo?api-version=${API_VERSION}`, { method: 'DELETE' });
    assert.equal(accepted.status, 202);
    assert.equal(accepted.headers.get('retry-after'), '0');
    let location = accepted.headers.get('location') ?? '';
    assert.match(location, /\/providers\/Microsoft\.Widgets\/locations\/westeurope\/operationResults\/[0-9a-f-]+\?api-version=2024-05-01$/);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      assert.ok(api.widget(SUB, 'widgets-rg', 'bravo'), 'the widget is still there while the delete runs');
      const poll = await call(location);
      statuses.push(poll.status);
      if (poll.status !== 202) break;
      location = poll.headers.get('location') ?? location;
    }
    assert.deepEqual(statuses, [202, 202, 204]);
    assert.equal(api.widget(SUB, 'widgets-rg', 'bravo'), undefined);
    assert.equal((await call(`${RG}/bravo?api-version=${API_VERSION}`)).status, 404);

    // POST polish: 202 until done, then 200 with the result; a widget that never finishes stays 202.
    const polish = await call(`${RG}/charlie/polish?api-version=${API_VERSION}`, { method: 'POST' });
    assert.equal(polish.status, 202);
    const result = polish.headers.get('location') ?? '';
    assert.equal((await call(result)).status, 202);
    assert.equal((await call(result)).status, 202);
    const polished = await call(result);
    assert.equal(polished.status, 200);
    assert.equal(((await json(polished)) as { shine: number }).shine, 30);
    api.control.neverFinish.add('delta');
    const stuck = await call(`${RG}/delta?api-version=${API_VERSION}`, { method: 'DELETE' });
    for (let i = 0; i < 5; i++) assert.equal((await call(stuck.headers.get('location') ?? '')).status, 202);
    assert.equal((await call(`${RG}/delta?api-version=${API_VERSION}`, { method: 'DELETE' })).status, 409);
  });

  test('Graph pages by an absolute @odata.nextLink with $top and $skiptoken, and PATCH answers 204', async () => {
    const names: string[] = [];
    let next: string | undefined = `${api.graphUrl}/users?$top=2`;
    while (next) {
      const response = await call(next, { token: graphToken });
      assert.equal(response.status, 200);
      const page = (await json(response)) as { value: { displayName: string }[]; '@odata.nextLink'?: string };
      names.push(...page.value.map((u) => u.displayName));
      next = page['@odata.nextLink'];
      if (next) assert.match(next, new RegExp(`^${api.graphUrl}/users\\?\\$top=2&\\$skiptoken=[\\w-]+$`));
    }
    assert.equal(names.length, 5);
    const id = [...api.users.keys()][0] ?? '';
    const patched = await call(`${api.graphUrl}/users/${id}`, { token: graphToken, method: 'PATCH', body: JSON.stringify({ jobTitle: 'Chief Widget Officer' }) });
    assert.equal(patched.status, 204);
    assert.equal(api.users.get(id)?.jobTitle, 'Chief Widget Officer');
    const selected = await json(await call(`${api.graphUrl}/users/${id}?$select=displayName,jobTitle`, { token: graphToken }));
    assert.deepEqual(Object.keys(selected).sort(), ['@odata.context', 'displayName', 'jobTitle']);
  });

  test("a token from the fake az, run as Azure.Identity runs it, is accepted for its audience only", async () => {
    const env = { ...process.env, PATH: az.pathWith() };
    const { stdout } = await run('/bin/sh', ['-c', `az account get-access-token --output json --resource ${ARM_RESOURCE}`], { cwd: '/bin/', env });
    const printed = JSON.parse(stdout) as { accessToken: string; expiresOn: string; expires_on: number; subscription: string; tenant: string; tokenType: string };
    assert.equal(printed.tokenType, 'Bearer');
    assert.match(printed.expiresOn, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}$/);
    assert.ok(printed.expires_on > Date.now() / 1000 + 3000);
    assert.equal(tokenClaims(printed.accessToken)?.aud, ARM_RESOURCE);
    const runs = az.invocations();
    assert.equal(runs.length, 1);
    assert.equal(runs[0]?.resource, ARM_RESOURCE);
    assert.equal(runs[0]?.cwd, realpathSync('/bin'));
    assert.equal(runs[0]?.tokenId, tokenClaims(printed.accessToken)?.jti);

    const accepted = await call(`${RG}/alpha?api-version=${API_VERSION}`, { token: printed.accessToken });
    assert.equal(accepted.status, 200);
    assert.equal(api.requests.at(-1)?.tokenId, runs[0]?.tokenId);
    // Graph's stand-in refuses an ARM token; ARM refuses Graph's, a forged one and none at all.
    assert.equal((await call(`${api.graphUrl}/users`, { token: printed.accessToken })).status, 401);
    const wrongAudience = await call(`${RG}/alpha?api-version=${API_VERSION}`, { token: graphToken });
    assert.equal(wrongAudience.status, 401);
    assert.equal(((await json(wrongAudience)).error as { code: string }).code, 'InvalidAuthenticationTokenAudience');
    assert.equal((await call(`${RG}/alpha?api-version=${API_VERSION}`, { token: mintToken('another secret', ARM_RESOURCE) })).status, 401);
    assert.equal((await call(`${RG}/alpha?api-version=${API_VERSION}`, { token: mintToken(az.secret, ARM_RESOURCE, { lifetimeSeconds: -10 }) })).status, 401);
    const none = await fetch(`${api.url}${RG}/alpha?api-version=${API_VERSION}`);
    assert.equal(none.status, 401);
    assert.match(none.headers.get('www-authenticate') ?? '', /^Bearer /);
    assert.equal(((await json(none)).error as { code: string }).code, 'AuthenticationFailed');

    // --scope, as the CLI also takes it, and a signed-out CLI failing as the real one does.
    const scoped = JSON.parse((await run('/bin/sh', ['-c', `az account get-access-token --output json --scope ${GRAPH_RESOURCE}/.default`], { env })).stdout) as { accessToken: string };
    assert.equal((await call(`${api.graphUrl}/users/${[...api.users.keys()][0] ?? ''}`, { token: scoped.accessToken })).status, 200);
    az.configure({ loggedOut: true });
    await assert.rejects(run('/bin/sh', ['-c', `az account get-access-token --output json --resource ${ARM_RESOURCE}`], { env }), /az login/);
    az.configure({ loggedOut: false });
    assert.deepEqual(az.invocations().map((r) => r.exitCode), [0, 0, 1]);
    assert.equal(az.tokenRuns().length, 2);
  });
});
