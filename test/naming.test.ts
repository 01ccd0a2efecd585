import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planNames } from '../src/names/plan.js';
import { splitPathTemplate } from '../src/model/paths.js';
import { identifier, words, CSHARP_KEYWORDS } from '../src/names/identifiers.js';
import { matchNames } from '../src/names/name-matching.js';
import { credentialVariables, environmentPrefix, environmentVariables } from '../src/names/environment.js';
import { operationIdWords } from '../src/names/tool-name-choice.js';
import type { ApiModel, HttpMethod, Operation, Parameter, ObjectType } from '../src/model/types.js';

const STRING = { kind: 'primitive', type: 'string', nullable: false } as const;

function op(method: HttpMethod, path: string, extra: Partial<Operation> = {}): Operation {
  return { id: `/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}`, method, path, ...splitPathTemplate(path), tags: [], deprecated: false, parameters: [], success: { kind: 'none', status: '204' }, ...extra };
}

function model(operations: Operation[], types: ObjectType[] = []): ApiModel {
  return { title: 'T', version: '1', operations, types: new Map(types.map((t) => [t.id, t])), tags: [], securitySchemes: [] };
}

function toolNames(...ops: [HttpMethod, string][]): string[] {
  const m = model(ops.map(([method, path]) => op(method, path)));
  const plan = planNames(m);
  return m.operations.map((o) => plan.operations.get(o.id)?.toolName ?? '?');
}

test('SPEC 4.3 table: get, create, update, delete of a resource', () => {
  assert.deepEqual(
    toolNames(['get', '/pets/{id}'], ['post', '/pets'], ['put', '/pets/{id}'], ['delete', '/pets/{id}']),
    ['get_pet', 'create_pet', 'update_pet', 'delete_pet'],
  );
});

test('names come from method and path, not from operationId', () => {
  const m = model([op('get', '/pets/{petId}', { operationId: 'fetchAnimalById' })]);
  assert.equal(planNames(m).operations.get(m.operations[0]!.id)?.toolName, 'get_pet');
});

test('beyond the table: list, patch, nested resources, actions, singletons', () => {
  assert.deepEqual(
    toolNames(
      ['get', '/pets'], ['patch', '/pets/{id}'], ['get', '/owners/{ownerId}/pets'], ['post', '/owners/{ownerId}/pets'],
      ['post', '/orders/{id}/cancel'], ['put', '/repos/{owner}/{repo}/issues/{issue_number}/lock'], ['get', '/users/me'],
      ['get', '/'], ['get', '/v1/{name}:cancel'],
    ),
    ['list_pets', 'patch_pet', 'list_owner_pets', 'create_owner_pet', 'cancel_order', 'update_repo_issue_lock', 'get_user_me', 'get_root', 'cancel'],
  );
  assert.deepEqual(toolNames(['post', '/repos/{owner}/{repo}/issues/{issue_number}/lock']), ['lock_repo_issue']);
  assert.deepEqual(toolNames(['post', '/login'], ['post', '/orders/{id}/receipt'], ['post', '/pets/search']), ['login', 'create_order_receipt', 'search_pets']);
});

test('a prefix shared by every path and version segments are left out', () => {
  assert.deepEqual(toolNames(['get', '/api/v2/pets'], ['get', '/api/v2/pets/{id}'], ['get', '/api/v2/owners']), ['list_pets', 'get_pet', 'list_owners']);
  assert.deepEqual(toolNames(['get', '/pets']), ['list_pets']);
  // A date is a version too (Twilio's /2010-04-01/Accounts/…), where other paths keep it from being a shared prefix.
  assert.deepEqual(toolNames(['get', '/2010-04-01/Accounts/{AccountSid}/Calls.json'], ['get', '/healthcheck']), ['list_account_calls', 'get_healthcheck']);
});

test('POST to one thing its summary or operationId says it updates is an update; an OData operation qualified by its namespace is an action', () => {
  const m = model([
    op('post', '/Accounts/{AccountSid}/Calls/{Sid}.json', { operationId: 'UpdateCall' }),
    op('post', '/Invoices/{InvoiceID}', { summary: 'Updates a specific sales invoice' }),
    op('post', '/events/{day}', { summary: 'Schedule an event' }),
    op('post', '/Accounts/{AccountSid}/Calls.json', { operationId: 'CreateCall' }),
  ]);
  const plan = planNames(m);
  assert.deepEqual(m.operations.map((o) => plan.operations.get(o.id)?.toolName), ['update_account_call', 'update_invoice', 'create_event', 'create_account_call']);
  assert.deepEqual(
    toolNames(['post', '/me/messages/{message-id}/microsoft.graph.move'], ['post', '/me/microsoft.graph.sendMail'], ['get', '/me/events/microsoft.graph.delta()'], ['get', '/me/calendar/microsoft.graph.allowedCalendarSharingRoles(User=\'{User}\')']),
    ['move_message', 'send_mail', 'delta_events', 'allowed_calendar_sharing_roles_calendar'], 'after /me, which every path shares',
  );
});

test('collisions are resolved deterministically: version, then item parameter, format, tag, then a number', () => {
  assert.deepEqual(toolNames(['get', '/v1/pets'], ['get', '/v2/pets']), ['list_pets', 'list_pets_v2']);
  assert.deepEqual(toolNames(['get', '/pets/{id}'], ['get', '/pet/{name}']), ['get_pet', 'get_pet_by_name']);
  assert.deepEqual(toolNames(['get', '/pets'], ['get', '/pets.json'], ['get', '/pets.xml']), ['list_pets', 'list_pets_json', 'list_pets_xml']);
  assert.deepEqual(toolNames(['get', '/jobs'], ['get', '/jobs/']), ['list_jobs', 'list_jobs_2'], 'nothing tells these apart');
  const again = toolNames(['get', '/v1/pets'], ['get', '/v2/pets']);
  assert.deepEqual(again, ['list_pets', 'list_pets_v2']);
});

test('every name matches ^[a-z0-9_]{1,64}$ and long paths stay within 48 characters', () => {
  const long = '/organizations/{org}/departments/{dept}/teams/{team}/members/{member}/certifications/{cert}/renewals';
  const names = toolNames(['get', long], ['post', long], ['get', '/Über-Straße/{id}'], ['get', '/ünïcödé'], ['delete', '/x'.repeat(80)]);
  for (const name of names) {
    assert.match(name, /^[a-z0-9_]{1,64}$/);
    assert.ok(name.length <= 48, `${name} is ${name.length} characters`);
  }
  assert.equal(names[0], 'list_team_member_certification_renewals');
  assert.equal(new Set(names).size, names.length);
});

test('client methods and tool methods come from the same plan', () => {
  const m = model([op('get', '/pets/{id}'), op('get', '/pets')]);
  const plan = planNames(m);
  assert.deepEqual([...plan.operations.values()].map((n) => [n.toolName, n.toolMethod, n.clientMethod]), [
    ['get_pet', 'GetPet', 'GetPetAsync'],
    ['list_pets', 'ListPets', 'ListPetsAsync'],
  ]);
});

test('a method name that HttpClient already has is qualified', () => {
  const m = model([op('get', '/')]);
  const plan = planNames(m);
  assert.notEqual(plan.operations.get(m.operations[0]!.id)?.clientMethod, 'GetAsync');
});

test('parameter names: camelCase C# identifiers, keywords escaped, clashes qualified by location', () => {
  const param = (name: string, location: Parameter['location']): Parameter => ({ name, location, required: false, type: STRING, facts: {}, allowEmpty: false, style: 'form', explode: true });
  const m = model([op('post', '/items/{id}', {
    parameters: [param('id', 'path'), param('X-Request-Id', 'header'), param('page[size]', 'query'), param('$filter', 'query'), param('@odata.type', 'query'), param('class', 'query'), param('id', 'query'), param('body', 'query'), param('2fa', 'query')],
    body: { kind: 'json', mediaType: 'application/json', type: STRING, required: true },
  })]);
  const names = planNames(m).operations.get(m.operations[0]!.id)?.parameters;
  assert.deepEqual(names, ['id', 'xRequestId', 'pageSize', 'filter', 'odataType', '@class', 'idQuery', 'bodyQuery', '_2fa']);
});

test('type names: reserved and colliding names are changed, properties never repeat the type name', () => {
  const type = (name: string, props: string[]): ObjectType => ({
    id: `/components/schemas/${name}`, origin: { kind: 'component', name },
    properties: props.map((jsonName) => ({ jsonName, type: STRING, required: false, readOnly: false, facts: {} })),
  });
  const m = model([], [type('Task', []), type('pet', []), type('Pet', []), type('HttpClient', []), type('Result', ['result', 'Result', 'to_string', 'class'])]);
  const plan = planNames(m);
  assert.deepEqual([...plan.types.values()].map((t) => t.name), ['TaskModel', 'Pet', 'Pet2', 'HttpClientModel', 'Result']);
  assert.deepEqual(plan.types.get('/components/schemas/Result')?.properties, ['ResultValue', 'ResultValue2', 'ToStringValue', 'Class']);
});

test('singular forms pluralize gets wrong are corrected, in tool names and item type names', () => {
  assert.deepEqual(
    toolNames(['delete', '/repos/{owner}/{repo}/actions/caches/{id}'], ['post', '/sms'], ['post', '/workbook/charts/{id}/setData'], ['get', '/reports/{id}/metadata'], ['get', '/cookies/set'], ['delete', '/employees/{id}/leaves/{leaveId}']),
    ['delete_repo_action_cache', 'create_sms', 'create_workbook_chart_set_data', 'get_report_metadata', 'get_cookie_set', 'delete_employee_leave'],
  );
  const list = (property: string): ObjectType => ({ id: `/components/schemas/Page/properties/${property}/items`, origin: { kind: 'items', parent: '/components/schemas/Page', property }, properties: [] });
  const m = model([], [{ id: '/components/schemas/Page', origin: { kind: 'component', name: 'Page' }, properties: [] }, list('actions_caches'), list('data'), list('children')]);
  assert.deepEqual([...planNames(m).types.values()].map((t) => t.name), ['Page', 'PageActionsCacheItem', 'PageDataItem', 'PageChildItem']);
});

test('identifiers: words, casing, digits and keywords', () => {
  assert.deepEqual(words('X-Request-Id'), ['x', 'request', 'id']);
  assert.deepEqual(words('HTTPServer2Go'), ['http', 'server', '2', 'go']);
  assert.equal(identifier(words('2fa'), 'pascal', 'X'), '_2fa');
  assert.equal(identifier([], 'camel', 'item'), 'item');
  assert.equal(identifier(['await'], 'camel', 'x'), '@await');
  assert.equal(identifier(words('𠮷野家 x'), 'pascal', 'X'), '野家X');
  assert.equal(identifier(['a'.repeat(5000)], 'camel', 'x').length, 128);
  for (const keyword of CSHARP_KEYWORDS) assert.equal(identifier([keyword], 'camel', 'x'), '@' + keyword);
  assert.ok(CSHARP_KEYWORDS.has('namespace') && CSHARP_KEYWORDS.has('event') && !CSHARP_KEYWORDS.has('record'));
});

test('titles: the summary when it is one short line (without its final period), else words of the tool name', () => {
  const long = 'Returns every pet in the store, filtered by species and paged with limit and offset';
  const m = model([
    op('get', '/pets/{id}', { summary: 'Get a pet by id.' }),
    op('get', '/pets', { summary: long }),
    op('post', '/pets', { summary: 'Create a pet\nand return it' }),
    op('delete', '/pets/{id}'),
  ]);
  const plan = planNames(m);
  assert.deepEqual(m.operations.map((o) => plan.operations.get(o.id)?.title), ['Get a pet by id', 'List pets', 'Create pet', 'Delete pet']);
});

test('OData segments: $count counts what it follows, $ref and $value name what they reference', () => {
  assert.deepEqual(
    toolNames(['get', '/users'], ['get', '/users/$count'], ['get', '/groups/{id}/members/$ref'], ['post', '/groups/{id}/members/$ref'], ['delete', '/groups/{id}/members/{member-id}/$ref'], ['get', '/users/{id}/photo/$value'], ['get', '/groups/{id}/members/microsoft.graph.user/$count']),
    ['list_users', 'count_users', 'list_group_members_ref', 'create_group_member_ref', 'delete_group_member_ref', 'get_user_photo_value', 'count_group_members_user'],
  );
});

test('a long segment keeps its last words, not its first, and siblings stay apart without counters', () => {
  const long = '/deviceManagement/userExperienceAnalyticsAppHealthApplicationPerformanceByAppVersion';
  const names = toolNames(['get', `${long}/$count`], ['get', '/deviceManagement/userExperienceAnalyticsAppHealthDevicePerformance/$count'], ['get', long]);
  assert.deepEqual(names, ['count_application_performance_by_app_version', 'count_analytics_app_health_device_performance', 'get_application_performance_by_app_version']);
});

test('API groups named by domain, Kubernetes versions, RPC methods, Express parameters and operations named in the template', () => {
  assert.deepEqual(
    toolNames(['get', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations'], ['get', '/apis/admissionregistration.k8s.io/v1beta1/mutatingwebhookconfigurations'], ['post', '/apis/rbac.authorization.k8s.io/v1/clusterroles']),
    ['list_mutatingwebhookconfigurations', 'list_mutatingwebhookconfigurations_v1beta1', 'create_rbac_authorization_clusterrole'],
  );
  assert.deepEqual(toolNames(['get', '/apis/admissionregistration.k8s.io/'], ['get', '/api/v1/namespaces']), ['get_api_admissionregistration', 'list_api_namespaces']);
  assert.deepEqual(toolNames(['get', '/artist.albums.get'], ['get', '/artist.tracks.get'], ['get', '/me/microsoft.graph.sendMail']), ['get_artist_albums', 'get_artist_tracks', 'send_mail_me']);
  assert.deepEqual(toolNames(['delete', '/logs/{appId}/drains/:idOrUrl'], ['get', '/logs/{appId}/drains/:idOrUrl']), ['delete_log_drain', 'get_log_drain']);
  assert.deepEqual(
    toolNames(['post', '/voice-connectors'], ['post', '/voice-connectors/{id}#operation=associate-phone-numbers']),
    ['create_voice_connector', 'associate_phone_numbers_voice_connector'],
  );
});

test('operationIds lose their hash-like pieces and keep versions whole; a tag or a format tells operations apart before a counter', () => {
  const m = model([
    op('post', '/#X-Amz-Target=S3.ListObjectsV2', { operationId: 'ListObjectsV2' }),
    op('get', '/#X-Amz-Target=Graph.GetCount', { operationId: 'Get.Count.multiValueExtendedProperties-e7d5' }),
    op('post', '/products', { id: 'catalog', tags: ['Catalog'] }),
    op('post', '/products', { id: 'stock', tags: ['Warehouse stock'] }),
    op('get', '/ip/{ipv4}'),
    op('get', '/ip.txt'),
    op('get', '/ip/{ipv4}.txt'),
  ]);
  const plan = planNames(m);
  assert.deepEqual(m.operations.map((o) => plan.operations.get(o.id)?.toolName), [
    'list_objects_v2', 'get_count_multi_value_extended_properties', 'create_product', 'create_product_warehouse_stock', 'get_ip', 'get_ip_txt', 'get_ip_by_ipv_4_txt',
  ]);
});

test('deep paths that share a target keep the words that tell them apart (some parents skipped or named by their last word), never a counter', () => {
  const owners = ['/users/{user-id}', '/me', '/groups/{group-id}'];
  const chains = ['/calendar/calendarView/{event-id}', '/calendarGroups/{calendarGroup-id}/calendars/{calendar-id}/events/{event-id}', '/events/{event-id}', '/calendarView/{event-id}'];
  const tails = ['', '/instances/{event-id1}', '/exceptionOccurrences/{event-id1}', '/exceptionOccurrences/{event-id1}/instances/{event-id2}'];
  const paths = owners.flatMap((o) => chains.flatMap((c) => tails.map((t) => `${o}${c}${t}/multiValueExtendedProperties/$count`)));
  const m = model(paths.map((path) => op('get', path)));
  const plan = planNames(m);
  const names = m.operations.map((o) => plan.operations.get(o.id)?.toolName ?? '');
  assert.equal(new Set(names).size, paths.length);
  m.operations.forEach((o, i) => {
    const name = names[i] ?? '';
    assert.match(name, /^count_([a-z_]+_)?multi_value_extended_properties(_by_event_id)?$/, `${name} for ${o.path}`);
    assert.ok(name.length <= 64, name);
    // Every word is a word of the path, in the path's order; the innermost parent is named.
    const pathWords = o.path.split(/[/{}$-]+/).flatMap((s) => words(s)).map((w) => w.replace(/s$/, ''));
    let at = 0;
    for (const w of name.replace(/^count_/, '').replace(/_by_event_id$/, '').split('_')) {
      at = pathWords.indexOf(w.replace(/s$/, ''), at);
      assert.ok(at >= 0, `${w} of ${name} is not in ${o.path} in order`);
    }
    const innermost = /(instance|occurrence|event|view)s?\/\{[^}]+\}\/multiValue/i.exec(o.path)?.[1]?.toLowerCase() ?? '';
    if (!name.endsWith('_by_event_id') && i > 0) assert.ok(name.includes(`${innermost}_multi_value`), `${name} names ${innermost} for ${o.path}`);
  });
  // An operation's own plain name stays its own, wherever it is in the list.
  const own = (path: string): string | undefined => names[paths.indexOf(path)];
  assert.equal(own('/me/events/{event-id}/instances/{event-id1}/multiValueExtendedProperties/$count'), 'count_me_event_instance_multi_value_extended_properties');
  assert.equal(own('/groups/{group-id}/events/{event-id}/multiValueExtendedProperties/$count'), 'count_group_event_multi_value_extended_properties');
});

test('names are matched so that an operation with few fitting names is not left with a counter by one with many', () => {
  assert.deepEqual([...matchNames([{ key: 'many', candidates: ['a', 'b'] }, { key: 'few', candidates: ['a'] }], new Set())], [['many', 'b'], ['few', 'a']]);
  assert.deepEqual([...matchNames([{ key: 'x', candidates: ['a'] }, { key: 'y', candidates: ['a'] }], new Set())], [['x', 'a']]);
  assert.deepEqual([...matchNames([{ key: 'x', candidates: ['a', 'b'] }], new Set(['a']))], [['x', 'b']]);
});

test('matchNames seats as many choosers as the largest possible matching, on random small cases', () => {
  let seed = 7;
  const next = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
  const largest = (lists: readonly string[][], used: Set<string>, from = 0): number => {
    if (from === lists.length) return 0;
    let best = largest(lists, used, from + 1);
    for (const name of lists[from] ?? []) {
      if (used.has(name)) continue;
      used.add(name);
      best = Math.max(best, 1 + largest(lists, used, from + 1));
      used.delete(name);
    }
    return best;
  };
  for (let round = 0; round < 300; round++) {
    const lists = Array.from({ length: 2 + next(6) }, () => [...new Set(Array.from({ length: next(4) }, () => 'abcde'[next(5)] as string))]);
    const matched = matchNames(lists.map((candidates, key) => ({ key, candidates })), new Set());
    assert.equal(matched.size, largest(lists, new Set()), JSON.stringify(lists));
    assert.equal(new Set(matched.values()).size, matched.size);
    for (const [key, name] of matched) assert.ok(lists[key]?.includes(name));
  }
});

test("a dotted operationId's hash is left out even when it is letters only; a kebab-case word that looks like one is kept", () => {
  assert.deepEqual(operationIdWords('users.calendarGroups.GetCount-ebdb'), ['users', 'calendar', 'groups', 'get', 'count']);
  assert.deepEqual(operationIdWords('create-bank-feed'), ['create', 'bank', 'feed']);
});

test('where plain names are taken, a readable operationId comes before a shortened path, and a cut one is never used', () => {
  const m = model([
    op('get', '/shops/{s}/stores/{t}/items', { id: '1', operationId: 'ListItems' }),
    op('get', '/shops/{s}/stores/{t}/items/', { id: '2', operationId: 'ListItemsAgain' }),
    op('get', '/shops/{s}/stores/{t}/Items', { id: '3', operationId: 'ListLegacyItems' }),
    op('get', '/shops/{s}/stores/{t}/ITEMS', { id: '4', operationId: 'ListItemsTheOldWayWithAnOperationIdFarTooLongToBeAToolNameWithoutCuttingIt' }),
  ]);
  const plan = planNames(m);
  assert.deepEqual(m.operations.map((o) => plan.operations.get(o.id)?.toolName), ['list_shop_store_items', 'list_shop_store_items_by_t', 'list_legacy_items', 'list_store_items']);
});

test('settings prefixes: words by case and separators, a digit staying in the word it is written in', () => {
  const prefixes = ['n8n', 'Petstore', 'myApi', '2fa', 'Web3Storage', 'ipv4Tools', 'HTTPServer', 'GitHub v3', 'café au lait', '!!!'].map(environmentPrefix);
  assert.deepEqual(prefixes, ['N8N', 'PETSTORE', 'MY_API', '_2FA', 'WEB3_STORAGE', 'IPV4_TOOLS', 'HTTP_SERVER', 'GIT_HUB_V3', 'CAFE_AU_LAIT', 'MCP']);
  assert.equal(environmentVariables('n8n').baseUrl, 'N8N_BASE_URL');
  assert.deepEqual(credentialVariables('n8n', { kind: 'apiKey', name: 'ApiKey', in: 'header', parameter: 'X-N8N-API-KEY' }), { value: 'N8N_API_KEY' });
  assert.deepEqual(credentialVariables('n8n', { kind: 'bearer', name: 'oauth2' }), { value: 'N8N_OAUTH2_TOKEN' });
});
