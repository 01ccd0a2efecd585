/**
 * Azure and Microsoft Graph conventions, end to end: servers generated with `--credential azure` from an ARM document
 * (Swagger 2.0, AutoRest style) and a Graph-style one, built once, started as clients start them, driven by the MCP
 * client against the ARM and Graph stand-ins of test/support/azure-api.ts, with Azure.Identity's DefaultAzureCredential
 * getting its tokens from the fake Azure CLI of test/support/fake-az.ts (no real Azure is reachable here). Every
 * effect is checked on the stand-in's state and its request log: the api-version sent, the subscription, the pages
 * fetched, the operations watched to their end, and where the tokens went.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connect } from '../examples/harness.js';
import { buildProjects, initProject, projectDll } from './support/real-api-projects.js';
import { API_VERSION, GRAPH_SPEC, SUBSCRIPTIONS, WIDGETS_SPEC, startAzureApi, type AzureApi } from './support/azure-api.js';
import { ARM_RESOURCE, ARM_SCOPE, GRAPH_SCOPE, writeFakeAz, type FakeAz } from './support/fake-az.js';
import { scratchDir } from './support/scratch.js';

const [SUB, OTHER_SUB] = SUBSCRIPTIONS as unknown as [string, string];
type Json = Record<string, any>;

describe('Azure Resource Manager and Microsoft Graph conventions (--credential azure)', { timeout: 15 * 60_000 }, () => {
  let work = '';
  let api: AzureApi;
  let az: FakeAz;
  const clients: Client[] = [];
  let arm: Client;
  let graph: Client;

  /** A server of `folder` with the stand-in as its API, signing in through the fake az; more settings over these. */
  const start = async (folder: 'widgets' | 'graph', more: Record<string, string> = {}): Promise<Client> => {
    const env: Record<string, string> = folder === 'widgets'
      ? { WIDGETS_BASE_URL: api.url, WIDGETS_SUBSCRIPTION_ID: SUB, WIDGETS_AZURE_SCOPE: ARM_SCOPE, WIDGETS_LRO_WAIT_SECONDS: '20' }
      : { GRAPH_BASE_URL: api.graphUrl, GRAPH_AZURE_SCOPE: GRAPH_SCOPE };
    // AZURE_TOKEN_CREDENTIALS: DefaultAzureCredential goes to the CLI at once (no managed-identity probe of 169.254.169.254).
    const client = await connect(projectDll(work, folder, folder === 'widgets' ? 'Widgets' : 'Graph'), { ...env, PATH: az.pathWith(), AZURE_TOKEN_CREDENTIALS: 'AzureCliCredential', ...more });
    clients.push(client);
    return client;
  };

  before(async () => {
    work = scratchDir('azure-e2e');
    az = writeFakeAz(scratchDir('azure-cli'));
    for (const [spec, name, folder] of [[WIDGETS_SPEC, 'Widgets', 'widgets'], [GRAPH_SPEC, 'Graph', 'graph']] as const) {
      const init = await initProject(work, spec, name, folder, '--credential', 'azure');
      assert.equal(init.code, 0, init.errors);
    }
    const [output, started] = await Promise.all([buildProjects(work, ['widgets/Widgets.csproj', 'graph/Graph.csproj']), startAzureApi({ tokenSecret: az.secret, retryAfterSeconds: 0, pollsBeforeDone: 2 })]);
    api = started;
    assert.doesNotMatch(output, /^build failed|warning [A-Z]+\d+/m, output);
    arm = await start('widgets');
    graph = await start('graph');
  });

  after(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await api?.close();
  });

  const call = async (client: Client, name: string, args: Record<string, unknown>, onprogress?: (message: string) => void): Promise<{ text: string; isError: boolean; blocks: string[] }> => {
    const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000, ...(onprogress && { onprogress: (p: { message?: string }) => onprogress(p.message ?? '') }) }) as { content: { text?: string }[]; isError?: boolean };
    const blocks = result.content.map((c) => c.text ?? '');
    return { text: blocks[0] ?? '', isError: result.isError === true, blocks };
  };
  const ok = (answer: { text: string; isError: boolean }): Json => {
    assert.equal(answer.isError, false, answer.text);
    return JSON.parse(answer.text) as Json;
  };
  const since = (mark: number): AzureApi['requests'] => api.requests.slice(mark);
  const query = (url: string): URLSearchParams => new URL(url).searchParams;

  test('tools/list: no tool asks for api-version; subscriptionId is optional; list tools take nextLink, long-running ones an operation token', async () => {
    const tools = new Map((await arm.listTools()).tools.map((t) => [t.name, t.inputSchema as Json]));
    for (const [name, schema] of tools) {
      assert.ok(!('apiVersion' in (schema.properties ?? {})) && !('api-version' in (schema.properties ?? {})), `${name} asks for the api-version`);
      if (schema.properties?.subscriptionId) assert.ok(!(schema.required ?? []).includes('subscriptionId'), `${name} requires subscriptionId`);
    }
    assert.equal(tools.get('list_provider_microsoft_widget_widgets')?.properties.nextLink.type, 'string');
    assert.equal(tools.get('update_provider_microsoft_widget_widget')?.properties.operation.type, 'string');
    assert.equal(tools.get('list_provider_microsoft_widget_operations')?.properties?.nextLink, undefined, 'nextLinkName: null is one page');
  });

  test('api-version is the document\'s on every call; the subscription is the setting\'s unless a call gives another', async () => {
    const mark = api.requests.length;
    const widget = ok(await call(arm, 'get_provider_microsoft_widget_widget', { resourceGroupName: 'widgets-rg', widgetName: 'alpha' }));
    assert.equal(widget.name, 'alpha');
    const other = ok(await call(arm, 'get_provider_microsoft_widget_widget', { subscriptionId: OTHER_SUB, resourceGroupName: 'other-rg', widgetName: 'foxtrot' }));
    assert.equal(other.name, 'foxtrot');
    const sent = since(mark);
    assert.deepEqual(sent.map((r) => query(r.url).get('api-version')), [API_VERSION, API_VERSION]);
    assert.deepEqual(sent.map((r) => new URL(r.url).pathname.split('/')[2]), [SUB, OTHER_SUB]);
  });

  test('WIDGETS_API_VERSION says another version for the whole server (here one ARM refuses, with its reason)', async () => {
    const pinned = await start('widgets', { WIDGETS_API_VERSION: '2019-01-01' });
    const answer = await call(pinned, 'get_provider_microsoft_widget_widget', { resourceGroupName: 'widgets-rg', widgetName: 'alpha' });
    assert.equal(answer.isError, true);
    assert.match(answer.text, /The api-version '2019-01-01' is invalid/);
    assert.equal(query(api.requests.at(-1)!.url).get('api-version'), '2019-01-01');
  });

  test('next pages: the answer says where the next page is, the tool fetches it as given, to the last page', async () => {
    const names: string[] = [];
    let answer = await call(arm, 'list_resource_group_provider_microsoft_widget_widgets', { resourceGroupName: 'widgets-rg' });
    const links: string[] = [];
    for (;;) {
      const page = ok(answer);
      names.push(...(page.value as Json[]).map((w) => w.name as string));
      const note = answer.blocks.find((b) => b.startsWith('There is a next page'));
      if (page.nextLink === undefined || page.nextLink === null) {
        assert.equal(note, undefined);
        break;
      }
      assert.equal(note, `There is a next page: call list_resource_group_provider_microsoft_widget_widgets with the same arguments and nextLink = ${JSON.stringify(page.nextLink)}.`);
      links.push(page.nextLink);
      const mark = api.requests.length;
      answer = await call(arm, 'list_resource_group_provider_microsoft_widget_widgets', { resourceGroupName: 'widgets-rg', nextLink: page.nextLink });
      assert.equal(since(mark)[0]?.url, page.nextLink, 'the link is fetched byte for byte');
    }
    assert.deepEqual(names.sort(), [...api.widgets.values()].filter((w) => w.id.toLowerCase().includes('/resourcegroups/widgets-rg/')).map((w) => w.name).sort());
    assert.equal(links.length, 2);
  });

  test('a nextLink that is not a next page of that operation is refused, and nothing is sent', async () => {
    const mark = api.requests.length;
    for (const nextLink of [
      'https://evil.example/subscriptions/x/resourceGroups/widgets-rg/providers/Microsoft.Widgets/widgets?$skiptoken=1',
      `${api.url}/subscriptions/${SUB}/providers/Microsoft.Widgets/checkNameAvailability?api-version=${API_VERSION}`,
      `${api.url}/subscriptions/${SUB}/resourceGroups/widgets-rg/providers/Microsoft.Widgets/widgets/../../../../../../providers/x?a=1`,
    ]) {
      const answer = await call(arm, 'list_resource_group_provider_microsoft_widget_widgets', { resourceGroupName: 'widgets-rg', nextLink });
      assert.equal(answer.isError, true, nextLink);
      assert.match(answer.text, /was not sent: the nextLink is not a next page of this operation/);
    }
    assert.equal(since(mark).length, 0);
  });

  test('a long-running PUT is watched to its end: the widget as it is then, Succeeded, with progress notifications', async () => {
    const progress: string[] = [];
    const widget = ok(await call(arm, 'update_provider_microsoft_widget_widget', { resourceGroupName: 'widgets-rg', widgetName: 'golf', body: { location: 'westeurope', properties: { color: 'green', size: 3 } } }, (message) => progress.push(message)));
    assert.equal(widget.properties.provisioningState, 'Succeeded');
    assert.equal(api.widget(SUB, 'widgets-rg', 'golf')?.properties.provisioningState, 'Succeeded');
    assert.ok(progress.length >= 1, 'progress notifications');
    const polls = api.requests.filter((r) => /operationStatuses/.test(r.url) && r.method === 'GET');
    assert.ok(polls.length >= 2, `${polls.length} polls`);
    assert.ok(polls.every((r) => /^Bearer /.test(String(r.headers.authorization))));
  });

  test('a long-running DELETE is watched through Location until the widget is gone; a POST action gives its result', async () => {
    ok(await call(arm, 'update_provider_microsoft_widget_widget', { resourceGroupName: 'widgets-rg', widgetName: 'hotel', body: { location: 'westeurope', properties: { color: 'red', size: 2 } } }));
    const polished = ok(await call(arm, 'create_provider_microsoft_widget_widget_polish', { resourceGroupName: 'widgets-rg', widgetName: 'hotel' }));
    assert.equal(typeof polished.shine, 'number');
    await call(arm, 'delete_provider_microsoft_widget_widget', { resourceGroupName: 'widgets-rg', widgetName: 'hotel' });
    assert.equal(api.widget(SUB, 'widgets-rg', 'hotel'), undefined, 'the widget is gone when the tool answers');
  });

  test('x-ms-paths: a path told apart by its query is a tool like any other; an x-ms-client-name names its argument', async () => {
    const tools = (await arm.listTools()).tools;
    const summary = tools.find((t) => /summary/.test(t.description ?? ''));
    assert.ok(summary, `no tool for Widgets_GetSummary among ${tools.map((t) => t.name).join(', ')}`);
    const properties = (summary.inputSchema as Json).properties as Json;
    assert.deepEqual(Object.keys(properties).sort(), ['requestId', 'resourceGroupName', 'subscriptionId', 'widgetName']);
    const mark = api.requests.length;
    const answer = ok(await call(arm, summary.name, { resourceGroupName: 'widgets-rg', widgetName: 'alpha', requestId: 'req-42' }));
    assert.deepEqual(answer, { name: 'alpha', color: api.widget(SUB, 'widgets-rg', 'alpha')?.properties.color, size: api.widget(SUB, 'widgets-rg', 'alpha')?.properties.size, requestId: 'req-42' });
    const [sent] = since(mark);
    assert.deepEqual([new URL(sent!.url).pathname, query(sent!.url).get('view'), query(sent!.url).get('api-version'), sent!.headers['x-ms-client-request-id']],
      [`/subscriptions/${SUB}/resourceGroups/widgets-rg/providers/Microsoft.Widgets/widgets/alpha`, 'summary', API_VERSION, 'req-42']);
  });

  test('an operation that fails says why', async () => {
    api.control.rejectedColors.add('blue');
    const answer = await call(arm, 'update_provider_microsoft_widget_widget', { resourceGroupName: 'widgets-rg', widgetName: 'india', body: { location: 'westeurope', properties: { color: 'blue', size: 1 } } });
    api.control.rejectedColors.delete('blue');
    assert.equal(answer.isError, true);
    assert.match(answer.text, /ended Failed: .+/);
  });

  test('still running after the wait: the answer says so with a token; the same tool with that token watches it to its end; a forged token sends nothing', async () => {
    const brief = await start('widgets', { WIDGETS_LRO_WAIT_SECONDS: '3' });
    api.control.neverFinish.add('juliet');
    const first = ok(await call(brief, 'update_provider_microsoft_widget_widget', { resourceGroupName: 'widgets-rg', widgetName: 'juliet', body: { location: 'westeurope', properties: { color: 'green', size: 1 } } }));
    assert.equal(first.running, true);
    assert.match(first.note, /is still running after 3 s/);
    api.control.neverFinish.delete('juliet');
    for (const operation of api.operations.values()) {
      if (operation.widgetName.toLowerCase() === 'juliet') Object.assign(operation, { neverFinish: false, pollsBeforeDone: 0 });
    }
    const mark = api.requests.length;
    const done = await call(brief, 'update_provider_microsoft_widget_widget', { resourceGroupName: 'widgets-rg', widgetName: 'juliet', body: { location: 'westeurope', properties: { color: 'green' } }, operation: first.operation });
    assert.ok(!since(mark).some((r) => r.method === 'PUT'), 'nothing is sent again');
    const forged = await call(brief, 'update_provider_microsoft_widget_widget', { resourceGroupName: 'widgets-rg', widgetName: 'juliet', body: { location: 'westeurope' }, operation: `${first.operation.split('.')[0]}.AAAA` });
    assert.equal(forged.isError, true);
    assert.match(forged.text, /the operation token is not one this server gave/);
    assert.equal(ok(done).properties.provisioningState, 'Succeeded');
    assert.equal(api.widget(SUB, 'widgets-rg', 'juliet')?.properties.provisioningState, 'Succeeded');
  });

  test('tokens: DefaultAzureCredential asks the Azure CLI once for the scope, the client keeps the token; the base URL\'s origin is the default scope', async () => {
    const runs = (): number => az.tokenRuns().filter((run) => run.resource === ARM_RESOURCE).length;
    const already = runs();
    assert.ok(already >= 1);
    for (const widgetName of ['alpha', 'bravo', 'charlie']) ok(await call(arm, 'get_provider_microsoft_widget_widget', { resourceGroupName: 'widgets-rg', widgetName }));
    assert.equal(runs(), already, 'the token is kept: az is not run for every call');
    const byDefault = await start('widgets', { WIDGETS_AZURE_SCOPE: '' });
    const before = az.tokenRuns().length;
    await call(byDefault, 'get_provider_microsoft_widget_widget', { resourceGroupName: 'widgets-rg', widgetName: 'alpha' });
    assert.equal(az.tokenRuns().slice(before)[0]?.resource, new URL(api.url).origin);
  });

  test('Graph: @odata.nextLink pages and a PATCH, with a token for Graph', async () => {
    const first = await call(graph, 'list_users', { top: 2 });
    const page = ok(first);
    assert.equal((page.value as Json[]).length, 2);
    const link = page['@odata.nextLink'] as string;
    assert.ok(first.blocks.some((b) => b.includes(JSON.stringify(link))));
    const second = ok(await call(graph, 'list_users', { nextLink: link }));
    assert.equal((second.value as Json[]).length, 2);
    const id = (page.value as Json[])[0]!.id as string;
    await call(graph, 'patch_user', { userId: id, body: { jobTitle: 'Principal' } });
    assert.equal(api.users.get(id)?.jobTitle, 'Principal');
  });
});
