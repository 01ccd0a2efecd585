/**
 * The operation search of discovery mode: the words a text gives, the index the generator writes, the
 * ranking over it, and the command-line side of `--mode`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { planNames, prepare, runCli } from '../src/index.js';
import { AGENT, agentTerms, operationIntents, PERSON, personTerms, stem, terms } from '../src/emit/discovery/search-text.js';
import { queryWords } from '../src/emit/discovery/search-query-words.js';
import { searchIndex, type SearchIndex } from '../src/emit/discovery/search-index.js';
import { searchIndexed } from '../src/emit/discovery/search-query.js';
import { discoveryListing } from '../src/emit/discovery/discovery.js';
import { MAX_MAP_BYTES } from '../src/emit/discovery/search-map.js';
import { EXAMPLE_SPEC } from './support/golden.js';
import { scratchDir } from './support/scratch.js';

test('stemming (Porter2) folds plurals and verb forms into one term, and leaves short words and -ss words alone', () => {
  const same = [['create', 'creates', 'created', 'creating'], ['remind', 'reminds', 'reminders'], ['follow', 'follows', 'follower', 'followers', 'following'], ['allocate', 'allocations'], ['delete', 'deletion'], ['message', 'messages'], ['policy', 'policies'], ['address', 'addresses'], ['run', 'running'], ['stop', 'stopped'], ['box', 'boxes']];
  for (const group of same) assert.equal(new Set(group.map(stem)).size, 1, group.join());
  for (const word of ['string', 'status', 'access', 'add', 'pet']) assert.equal(stem(word), word);
});

test('terms split camelCase, snake_case, acronyms and digits, drop stop words, and keep repeats', () => {
  assert.deepEqual(terms('listRepoPulls'), ['list', 'repo', 'pull']);
  assert.deepEqual(terms('create_issue_comment'), ['creat', 'issu', 'comment']);
  assert.deepEqual(terms('HTTPServer v2beta'), ['http', 'server', 'v', '2', 'beta']);
  assert.deepEqual(terms('Open a new issue in the repository'), ['open', 'new', 'issu', 'repositori']);
  assert.deepEqual(terms('pets of pets'), ['pet', 'pet']);
  assert.deepEqual(queryWords('show pull requests').terms, ['show', 'pull', 'request', '~many'], 'a plural asks for many');
  assert.deepEqual(queryWords('get a pet').terms, ['get', 'pet']);
  assert.deepEqual(terms('subaccount subFolders'), ['subaccount', 'account', 'child', 'sub', 'folder'], 'a sub- word also stands for the word it is part of, and for a child');
  assert.ok(queryWords('get rid of the old branch').intents.has('delete'), 'get rid of asks to delete');
});

test('a request is read as a person means it: contractions, phrasal verbs, negations, questions, past participles, possessors', () => {
  const read = (query: string): { terms: readonly string[]; intents: string[]; possessors: string[] } => {
    const words = queryWords(query);
    return { terms: words.terms, intents: [...words.intents].filter((k) => ['create', 'read', 'list', 'update', 'delete'].includes(k)).sort(), possessors: [...words.possessors] };
  };
  assert.deepEqual(read("what's inside the folder?"), { terms: ['insid', 'folder'], intents: ['list', 'read'], possessors: [] }, "what's is what is, and a question asks for a read or a list");
  assert.deepEqual(read('tear down the legacy service').intents, ['delete'], 'tear down is delete');
  assert.deepEqual(read('log Bob out everywhere').terms, ['logout', 'bob', 'everywher'], 'the particle may come a word later');
  assert.deepEqual(read('scale the service up').terms, ['scale', 'servic'], 'a particle no verb takes is no term');
  assert.deepEqual(read('save a draft without sending it').terms, ['save', 'draft'], 'the word after a negation is not wanted');
  assert.deepEqual(read("I don't want notifications about this task").terms, ['task'], "don't is do not");
  assert.deepEqual(read('which files were changed').intents, ['list', 'read'], 'a past participle asks for no kind');
  assert.deepEqual(read('change the file').intents, ['update']);
  assert.deepEqual(read("show an owner's pets").possessors, ['owner'], 'a possessor qualifies the thing asked for');
  assert.deepEqual(read("it's the owner").possessors, [], "it's is it is");
});

test('"who" and a verb ask for the ones who do it (followers), which the index holds for agent nouns; a noun made of a verb asks for no kind', () => {
  assert.ok(queryWords('who follows octocat?').terms.includes(`${AGENT}follow`));
  assert.ok(queryWords('who starred my repo').terms.includes(`${AGENT}star`));
  assert.ok(!queryWords('which people does octocat follow').terms.some((t) => t.startsWith(AGENT)), 'whom octocat follows: no agent');
  assert.ok(!queryWords('who is following me').terms.some((t) => t.startsWith(AGENT)), 'a stop word is no verb');
  assert.ok(agentTerms('List the followers').includes(`${AGENT}follow`));
  assert.ok(!agentTerms('List the users that this user is following').includes(`${AGENT}follow`), 'the following are not followers');
  assert.ok(!queryWords('get the attachments of an email').intents.has('create'), 'attachments is no request to attach');
  assert.ok(queryWords('attach a file').intents.has('create'));
});

test('"who" as the subject asks for people, which an index holds for paths that end in them; "who am I following" does not', () => {
  assert.ok(queryWords('who acted in Arrival').terms.includes(PERSON));
  assert.ok(queryWords("who's on the platform team?").terms.includes(PERSON));
  assert.ok(!queryWords('who am I following').terms.includes(PERSON), 'who is the object: whom I follow');
  assert.ok(!queryWords('which actors were in Arrival').terms.includes(PERSON), 'only a request that asks who');
  assert.deepEqual(['/movies/{id}/people', '/teams/{id}/members', '/webinars/{id}/absentees', '/Queues/{QueueSid}/Members.json'].map((p) => personTerms(p.split('/').at(-1)?.replace('.json', '') ?? '')), [[PERSON], [PERSON], [PERSON], [PERSON]]);
  assert.deepEqual(['folders', 'orders', 'containers', 'monitors', 'variants'].map(personTerms), [[], [], [], [], []], 'agent forms and look-alikes that are no people');
});

test('everyday verbs: "stop following" removes the following, "put X on Y" adds, "take X out of Y" removes, "look over" reviews', () => {
  const kinds = (query: string): string[] => [...queryWords(query).intents].filter((k) => ['create', 'read', 'list', 'update', 'delete'].includes(k)).sort();
  assert.deepEqual(kinds('stop following bob'), ['delete']);
  assert.deepEqual(queryWords('stop following bob').terms, ['remov', 'follow', 'bob']);
  assert.deepEqual(kinds('stop the build'), [], 'stop before a thing is stop');
  assert.deepEqual(queryWords('put Scream on my Halloween list').terms, ['add', 'scream', 'my', 'halloween', 'list'], 'put … on is add');
  assert.deepEqual(kinds('take one customer out of a contact group'), ['delete']);
  assert.ok(queryWords('nuke every droplet tagged ci-runner').intents.has('delete'));
  assert.ok(queryWords('ask dana to look over my PR').intents.has('review'));
});

test('the words a request says in the singular are noted: one thing, which may hold what is asked for', () => {
  assert.deepEqual([...queryWords('put a thumbs up emoji on issue 12').ones].sort(), ['12', 'emoji', 'issu', 'put']);
  assert.ok(!queryWords('label all the issues').ones.has('issu'));
  assert.ok(queryWords("an owner's pets").ones.has('owner'), 'a possessor is one thing');
});

test('what a request names after a preposition says where, not what: an operation that makes it makes something else', () => {
  assert.deepEqual([...queryWords('add a label to the issue').free], ['add', 'label']);
  assert.ok(queryWords('I want to create an issue').free.has('issu'), 'to before a verb is no preposition');
  assert.ok(!queryWords('push the standup to 10am').free.has('10'), 'to before a number is');
  assert.ok(!queryWords('put Scream on my list').free.has('list'), 'a particle of a phrasal verb still says where');
  const op = (name: string, path: string, kinds: string[], resource: string[], parent: string[]): SearchIndex['operations'][number] => [name, name, 'POST', path, [], '', name, 1000, kinds, resource, [], parent];
  const index: SearchIndex = {
    operations: [op('create_issue', '/issues', ['create'], ['issu'], []), op('create_issue_label', '/issues/{id}/labels', ['create'], ['label'], ['issu']), op('create_issue_key', '/CreateIssueKey', ['create', 'creat'], ['creat', 'issu', 'key'], [])],
    terms: { issu: [0, 450, 1, 500, 2, 380] },
  };
  assert.deepEqual(searchIndexed(index, 'put a tag on issue 12', 3), [1, 2, 0], 'a tag on the issue, not a new issue; an RPC name says more than a thing');
  assert.deepEqual(searchIndexed(index, 'add an issue', 3), [0, 1, 2], 'unless the issue is what is made');
});

test("an operation's kind comes from its summary's verb, else from its method and path; a query's from its verbs", () => {
  assert.deepEqual(operationIntents('put', '/Invoices', 'Creates one or more sales invoices'), ['create', 'creat'], 'the summary says create, whatever the method');
  assert.deepEqual(operationIntents('post', '/Invoices/{InvoiceID}', 'Updates a specific sales invoice'), ['update', 'updat']);
  assert.deepEqual(operationIntents('get', '/pets', 'Get all the pets'), ['list', 'get'], 'a read of many things is a list');
  assert.deepEqual(operationIntents('put', '/user/starred/{owner}/{repo}', 'Star a repository'), ['update', 'star'], "a verb of the summary's own is a kind too");
  assert.deepEqual(operationIntents('get', '/{Bucket}/{Key}', '', 'GetObject'), ['read', 'get'], 'without a summary, the operationId says');
  assert.deepEqual(operationIntents('post', '/pets/{id}', ''), ['update']);
  assert.deepEqual(operationIntents('post', '/pets', ''), ['create']);
  assert.deepEqual(operationIntents('delete', '/pets/{id}', ''), ['delete']);
  assert.deepEqual(operationIntents('post', '/me/microsoft.graph.sendMail', 'Invoke action sendMail'), ['send'], 'an OData action is its own verb, an action whatever its method');
  assert.deepEqual(operationIntents('post', '/repos/{o}/{r}/merges', 'Merge a branch'), ['merg'], 'an action verb is the kind');
  const kinds = (query: string): string[] => [...queryWords(query).intents].filter((k) => ['create', 'read', 'list', 'update', 'delete'].includes(k)).sort();
  assert.deepEqual(kinds('edit an existing invoice'), ['update']);
  assert.deepEqual(kinds('get a pet'), ['read']);
  assert.deepEqual(kinds('get the attachments of an email'), ['list', 'read'], 'reading things is listing them');
  assert.deepEqual(kinds('release a phone number'), ['delete']);
  assert.deepEqual(kinds('pets'), []);
  assert.ok(queryWords('star a repo').intents.has('star'));
});

test('the index holds every selected operation, its listing, and integer weights per term', async () => {
  const api = await prepare(EXAMPLE_SPEC);
  const plan = planNames(api.model);
  const index = JSON.parse(searchIndex(plan, api.model.operations, api.model)) as SearchIndex;
  assert.deepEqual(index.operations.map((o) => o[0]), ['list_pets', 'create_pet', 'get_pet', 'update_pet', 'delete_pet', 'list_owners', 'list_owner_pets']);
  assert.deepEqual(index.operations[1]?.slice(0, 7), ['create_pet', 'Create a pet', 'POST', '/pets', ['pets'], 'Create a pet', 'CreatePet']);
  for (const [term, postings] of Object.entries(index.terms)) {
    assert.equal(postings.length % 2, 0, term);
    for (let i = 0; i < postings.length; i += 2) {
      assert.ok(Number.isInteger(postings[i]) && (postings[i] ?? -1) >= 0 && (postings[i] ?? 99) < 7, term);
      assert.ok(Number.isInteger(postings[i + 1]) && (postings[i + 1] ?? 0) > 0, term);
    }
  }
  // Synonyms are indexed too: "remove" finds the DELETE operation, "add" the POST one.
  const first = (query: string): string | undefined => index.operations[searchIndexed(index, query, 1)[0] ?? -1]?.[0];
  assert.equal(first('remove a pet'), 'delete_pet');
  assert.equal(first('add a pet'), 'create_pet');
  assert.equal(first('modify a pet'), 'update_pet');
  assert.equal(first('fetch one pet'), 'get_pet');
  assert.equal(first("all of an owner's pets"), 'list_owner_pets');
  assert.deepEqual(searchIndexed(index, 'pets', 10, 'OWNERS').map((i) => index.operations[i]?.[0]), ['list_owner_pets', 'list_owners'], 'tags match whatever their case');
  assert.deepEqual(searchIndexed(index, 'the of a', 10), [], 'stop words alone find nothing');
  assert.deepEqual(searchIndexed(index, 'constructor toString', 10), [], 'words that name properties of every object are words like others');
  // What an operation acts on is the last word of its path, with its synonyms.
  assert.deepEqual(index.operations[3]?.slice(8, 10), [['update', 'updat'], ['pet']]);
  assert.deepEqual(index.operations[6]?.slice(8, 10), [['list'], ['pet']]);
  // And what holds it, the segment before, with its synonyms.
  assert.deepEqual(index.operations[6]?.[11], ['owner']);
  assert.deepEqual(index.operations[2]?.[11], []);
  // Each word of the tool name, with the terms that stand for it.
  assert.deepEqual(index.operations[6]?.[0], 'list_owner_pets');
  assert.deepEqual(index.operations[6]?.[10]?.map((forms) => forms[0]), ['list', 'owner', 'pet']);
  assert.ok(index.operations[6]?.[10]?.[0]?.includes('show'), 'list stands for show');
});

test('an operation whose path ends in something the query does not name ranks below one that it names', () => {
  const op = (name: string, path: string, resource: string[], parent: string[] = []): SearchIndex['operations'][number] => [name, name, 'GET', path, [], '', name, 1000, ['read'], resource, [], parent];
  // Same weights for "folder": only what each acts on differs.
  const index: SearchIndex = { operations: [op('get_folder_messages', '/folders/{id}/messages', ['messag']), op('get_folder', '/folders/{id}', ['folder'])], terms: { folder: [0, 500, 1, 500] } };
  assert.deepEqual(searchIndexed(index, 'show a folder', 2), [1, 0]);
  assert.deepEqual(searchIndexed(index, 'show messages of a folder', 2), [0, 1], 'unless the query names that too');
  // What the path's last segment names under one thing the query names comes between: the comments of this issue.
  const held: SearchIndex = {
    operations: [op('get_tag_comments', '/tags/{id}/comments', ['comment'], ['tag']), op('get_issue_comments', '/issues/{id}/comments', ['comment'], ['issu']), op('get_issue', '/issues/{id}', ['issu'])],
    terms: { issu: [0, 500, 1, 500, 2, 500] },
  };
  assert.deepEqual(searchIndexed(held, 'react to issue 12', 3), [2, 1, 0], 'the issue, what it holds, then the rest');
  assert.deepEqual(searchIndexed(held, 'react to all issues', 3), [2, 0, 1], 'issues in the plural are no one issue that holds anything');
});

test('the discovery tools/list stays under 2,100 bytes, and 3,600 with the longest map', () => {
  const bytes = Buffer.byteLength(JSON.stringify({ tools: discoveryListing() }));
  assert.ok(bytes <= 2100, String(bytes));
  const mapped = Buffer.byteLength(JSON.stringify({ tools: discoveryListing(`Tags: ${'x'.repeat(MAX_MAP_BYTES - 7)}.`) }));
  assert.ok(mapped <= 3600, String(mapped));
});

test('tools --mode discovery writes the index and McpDiscoveryText.g.cs beside McpTools.g.cs; an unknown mode is a one-line usage error', async () => {
  const dir = scratchDir('search');
  let err = '';
  const io = { out: () => {}, err: (t: string) => void (err += t) };
  const args = ['tools', '--openapi-url', EXAMPLE_SPEC, '--output-file', join(dir, 'McpTools.g.cs'), '--namespace', 'P', '--server-name', 'P', '--ext-namespace', 'P.C'];
  assert.equal(await runCli([...args, '--mode', 'discovery'], io), 0);
  assert.deepEqual((await readdir(dir)).sort(), ['McpDiscoveryText.g.cs', 'McpSearchIndex.g.json', 'McpTools.g.cs']);
  assert.equal((JSON.parse(await readFile(join(dir, 'McpSearchIndex.g.json'), 'utf8')) as SearchIndex).operations.length, 7);
  assert.notEqual(await runCli([...args, '--mode', 'dynamic'], io), 0);
  assert.equal(err, 'error: --mode "dynamic" is not one of operations, discovery, code\n');
});

test('an operation whose tool name the query says whole ranks above one with the same weights whose name it says in part', () => {
  const op = (name: string, nameWords: string[][]): SearchIndex['operations'][number] => [name, name, 'DELETE', `/${name}`, [], '', name, 1000, ['delete'], [], nameWords, []];
  // S3: "bucket" is on every operation, so it weighs nothing; the names tell delete_bucket from abort_multipart_upload.
  const index: SearchIndex = {
    operations: [op('abort_multipart_upload', [['abort', 'cancel'], ['multipart'], ['upload']]), op('delete_bucket', [['delet', 'remov'], ['bucket']])],
    terms: { delet: [0, 500, 1, 500], bucket: [0, 1, 1, 1] },
  };
  assert.deepEqual(searchIndexed(index, 'delete an empty bucket', 2), [1, 0]);
  assert.deepEqual(searchIndexed(index, 'remove the bucket', 2), [1, 0], 'a synonym says the word too');
});

test('with a limit, an operation its name lifts above a better-scoring one still comes first', () => {
  const op = (name: string, nameWords: string[][]): SearchIndex['operations'][number] => [name, name, 'GET', `/${name}`, [], '', name, 1000, ['read'], [], nameWords, []];
  // Summed weights 100, 80, 60: the second's name is all in the query (×1.5 = 120), the others' not at all.
  const index: SearchIndex = {
    operations: [op('a', [['x']]), op('b', [['pet']]), op('c', [['y']])],
    terms: { pet: [0, 100, 1, 80, 2, 60] },
  };
  assert.deepEqual(searchIndexed(index, 'pet', 1), [1]);
  assert.deepEqual(searchIndexed(index, 'pet', 2), [1, 0]);
  assert.deepEqual(searchIndexed(index, 'pet', 3), [1, 0, 2]);
});

test('the index reads RPC paths, request bodies and the words every path shares', async () => {
  const dir = scratchDir('search-index');
  const spec = join(dir, 'rpc.json');
  const body = (properties: Record<string, unknown>): unknown => ({ content: { 'application/json': { schema: { type: 'object', properties } } } });
  const op = (operationId: string, requestBody?: unknown): unknown => ({ operationId, ...(requestBody ? { requestBody } : {}), responses: { 200: { description: 'OK' } } });
  await writeFile(spec, JSON.stringify({
    openapi: '3.0.3', info: { title: 'Rpc', version: '1' },
    paths: {
      '/#X-Amz-Target=Cluster_20141113.DeleteService': { post: { ...(op('DeleteService') as object), description: 'Removes a service for good. Its history stays.' } },
      '/#X-Amz-Target=Cluster_20141113.UpdateService': { post: op('UpdateService', body({ desiredCount: { type: 'integer' }, status: { type: 'string', enum: ['draining', 'active'] } })) },
      '/#X-Amz-Target=Cluster_20141113.StopTask': { post: op('StopTask') },
    },
  }));
  const api = await prepare(spec);
  const index = JSON.parse(searchIndex(planNames(api.model), api.model.operations, api.model)) as SearchIndex;
  assert.deepEqual(index.operations.map((o) => o[9].slice(0, 2)), [['delet', 'servic'], ['updat', 'servic'], ['stop', 'task']], 'what an operation acts on is its path\'s last piece');
  assert.equal(index.terms.cluster, undefined, 'a path word every operation has is not indexed');
  assert.ok(index.terms.drain?.includes(1), "a body property's allowed values are");
  assert.ok(index.terms.desir?.includes(1), "and its names");
  const weight = (term: string): number => index.terms[term]?.[1] ?? 0;
  assert.ok(weight('good') > 1.5 * weight('histori') && weight('histori') > 0, 'without a summary, the first sentence of the description counts as one');
});
