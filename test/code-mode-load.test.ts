/**
 * Code mode under load, on a `--mode code --transport http` server of the library API: scripts are admitted to a
 * bounded number of running slots and a bounded queue (a script that cannot get in is refused at once, "busy"), a
 * queued script's time limit counts from its start and its answer says how long it waited, one caller cannot take
 * every slot, and the memory limit bounds what a script keeps alive, not what it allocates. Each caller is an MCP
 * client from a loopback address of its own (127.0.0.x).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildCodeHttpProject, processesOf, resultOf, runFrom, type CodeHttpServer } from './support/code-project.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
/** Spins until its time limit ends it (the statement limit is set out of reach). */
const SPIN = 'while (true) {}';
/** Runs for about `ms` of wall time, then returns `value`. */
const busyFor = (ms: number, value: string): string => `const end = Date.now() + ${ms}; while (Date.now() < end) {} return '${value}';`;
const interpreters = (server: CodeHttpServer): number => processesOf(server.dll).filter((p) => p.args.includes('--mcp-script-runner')).length;

describe('code mode under load: admission, queue, shares and live memory', () => {
  let start: Awaited<ReturnType<typeof buildCodeHttpProject>>;
  let server: CodeHttpServer | undefined;

  before(async () => {
    start = await buildCodeHttpProject('Scripts');
  });

  after(async () => {
    await server?.close();
  });

  /** A server with these settings in place of the last one. */
  const restart = async (settings: Record<string, string>): Promise<CodeHttpServer> => {
    await server?.close();
    server = await start(settings);
    return server;
  };

  test('a script that finds the running slot and the queue full is refused at once as busy; one that waits past the queue\'s wait is refused too; the server serves on', async () => {
    // Long scripts keep their slot here (SCRIPT_SHORT_SECONDS out of reach): this is the queue alone.
    const s = await restart({ SCRIPT_MAX_RUNNING: '1', SCRIPT_QUEUE_LENGTH: '1', SCRIPT_QUEUE_WAIT_SECONDS: '1', SCRIPT_TIMEOUT_SECONDS: '6', SCRIPT_MAX_STATEMENTS: '2000000000', SCRIPT_SHORT_SECONDS: '60' });
    const [a, b, c] = await Promise.all(['127.0.0.1', '127.0.0.2', '127.0.0.3'].map((address) => s.connect(address)));
    const running = runFrom(a!, SPIN);
    await sleep(1000);
    const queued = runFrom(b!, 'return (await api.get_owner({ ownerId: 2 })).name;');
    await sleep(500);
    const before = s.api.requests.length;
    const refused = await runFrom(c!, 'return (await api.get_owner({ ownerId: 1 })).name;');
    assert.equal(refused.isError, true);
    assert.equal(refused.text, 'Error: busy: 1 scripts running, 1 waiting; try again in a few seconds');
    const waited = await queued;
    assert.equal(waited.isError, true);
    assert.equal(waited.text, 'Error: busy: no slot came free within 1 s (SCRIPT_QUEUE_WAIT_SECONDS); 1 scripts running, 0 waiting; try again in a few seconds');
    // Neither refused script ran: the API saw nothing from them.
    assert.equal(s.api.requests.length, before);
    assert.ok(interpreters(s) <= 1 + 2, `${interpreters(s)} interpreters`);
    assert.match((await running).text, /^Error: script failed: it ran longer than the time limit of 6 s \(SCRIPT_TIMEOUT_SECONDS\)$/);
    assert.equal(resultOf(await runFrom(c!, 'return (await api.get_owner({ ownerId: 1 })).name;')), 'Owner A');
  });

  test('a queued script runs once a slot is free: its answer says how long it waited, and its time limit counts from its start', async () => {
    const s = await restart({ SCRIPT_MAX_RUNNING: '1', SCRIPT_QUEUE_LENGTH: '2', SCRIPT_QUEUE_WAIT_SECONDS: '30', SCRIPT_TIMEOUT_SECONDS: '4', SCRIPT_MAX_STATEMENTS: '2000000000', SCRIPT_SHORT_SECONDS: '60' });
    const [a, b] = await Promise.all([s.connect('127.0.0.1'), s.connect('127.0.0.2')]);
    const first = runFrom(a!, busyFor(3000, 'first'));
    await sleep(500);
    // Waits about 2.5 s, then runs 3 s: 5.5 s from its call, more than the 4 s limit, yet within it from its start.
    const second = await runFrom(b!, busyFor(3000, 'second'));
    assert.equal(resultOf(await first), 'first');
    const answer = JSON.parse(second.text) as { waitedMs?: number; result?: string };
    assert.equal(second.isError, false, second.text);
    assert.equal(answer.result, 'second');
    assert.ok((answer.waitedMs ?? 0) >= 1500, second.text);
    assert.ok(second.ms > 4000, `${second.ms} ms from the call`);
  });

  test('one caller cannot take every slot: while it floods, it runs its share and queues its half of the queue, and another caller gets a slot at once', async () => {
    const s = await restart({ SCRIPT_MAX_RUNNING: '2', SCRIPT_QUEUE_LENGTH: '4', SCRIPT_QUEUE_WAIT_SECONDS: '30', SCRIPT_TIMEOUT_SECONDS: '4', SCRIPT_MAX_STATEMENTS: '2000000000', SCRIPT_SHORT_SECONDS: '60' });
    const flooding = await Promise.all(Array.from({ length: 4 }, () => s.connect('127.0.0.1')));
    const other = await s.connect('127.0.0.2');
    const settled: string[] = [];
    const flood = flooding.map((client, i) => runFrom(client, SPIN).then((answer) => (settled.push(`flood ${i}`), answer)));
    await sleep(1000);
    const quick = await runFrom(other, 'return 6 * 7;');
    const floodSettledFirst = settled.length;
    assert.equal(resultOf(quick), 42);
    const answers = await Promise.all(flood);
    // The fourth of the flood found its caller's half of the queue (2) full, and was the only one of the flood to
    // end before the other caller's script (the others run until their 4 s limit).
    const refusedFlood = answers.filter((a) => a.text.startsWith('Error: busy: this caller has 1 scripts running and 2 waiting, its share (SCRIPT_MAX_RUNNING_PER_CALLER)'));
    assert.equal(refusedFlood.length, 1, answers.map((a) => a.text).join('\n'));
    assert.equal(answers.filter((a) => /time limit of 4 s/.test(a.text)).length, 3, answers.map((a) => a.text).join('\n'));
    assert.equal(floodSettledFirst, 1, settled.join(', '));
  });

  test('long scripts cannot crowd out short ones: four callers spinning on two running slots, a fifth caller\'s quick scripts answer while the loops still run; the loops end by their time limit or as busy; the interpreters stay within 2 x 2 + 2', async () => {
    const s = await restart({ SCRIPT_MAX_RUNNING: '2', SCRIPT_TIMEOUT_SECONDS: '8', SCRIPT_MAX_STATEMENTS: '2000000000' });
    const spinners = await Promise.all(['127.0.0.1', '127.0.0.2', '127.0.0.3', '127.0.0.4'].map((address) => s.connect(address)));
    const fifth = await s.connect('127.0.0.5');
    const timedOut = (text: string): boolean => /^Error: script failed: it ran longer than the time limit of 8 s/.test(text);
    let spinnersTimedOut = 0;
    const spinning = spinners.map((client) => runFrom(client, SPIN).then((answer) => (timedOut(answer.text) && spinnersTimedOut++, answer)));
    // The four spin: two in the lane for long scripts, two on the running slots (once their interpreters are ready).
    await sleep(3000);
    let most = interpreters(s);
    for (const expected of [42, 43]) {
      const quick = await runFrom(fifth, `return 6 * 7 + ${expected - 42};`);
      assert.equal(resultOf(quick), expected);
      // It did not wait for a long script to reach its time limit: one was moved or stopped for it.
      assert.equal(spinnersTimedOut, 0, `the quick script answered after ${quick.ms} ms, once a loop had reached its time limit: ${quick.text}`);
      most = Math.max(most, interpreters(s));
      await sleep(500);
    }
    const answers = (await Promise.all(spinning)).map((answer) => answer.text);
    const ended = answers.filter(timedOut).length;
    // Stopped running, or stopped still waiting for its interpreter (its slot's time counts from its admission).
    const stopped = answers.filter((text) => /^Error: busy: (the script ran longer than|no script interpreter came free within) 0\.25 s \(SCRIPT_SHORT_SECONDS\) while other scripts waited/.test(text)).length;
    // The lane for long scripts holds two to their time limit; a spinner on a running slot was stopped for the quick one.
    assert.equal(ended + stopped, 4, answers.join('\n'));
    assert.ok(stopped >= 1 && ended >= 2, answers.join('\n'));
    assert.ok(most <= 2 * 2 + 2, `${most} interpreters alive`);
  });

  test("a script still waiting for its interpreter holds its slot as a running one does: a later caller's quick script takes the slot and the first interpreter ready; the waiting one answers busy, not started", async () => {
    // One running slot and one long one; each script's slot counts as long after 0.05 s. An interpreter takes well
    // over that to start (a runtime and an engine warming up), so the third spinner is still waiting for one when the
    // quick script comes.
    const s = await restart({ SCRIPT_MAX_RUNNING: '1', SCRIPT_SHORT_SECONDS: '0.05', SCRIPT_TIMEOUT_SECONDS: '6', SCRIPT_MAX_STATEMENTS: '2000000000' });
    const [first, second, third, quick] = await Promise.all(['127.0.0.11', '127.0.0.12', '127.0.0.13', '127.0.0.14'].map((address) => s.connect(address)));
    await sleep(3000);
    // The first spins on a ready interpreter and moves to the long lane when the second comes; the second spins on the
    // other ready one and is stopped when the third comes (the long lane is full); the third waits for an interpreter.
    const answers = [runFrom(first!, SPIN)];
    await sleep(150);
    answers.push(runFrom(second!, SPIN));
    await sleep(150);
    answers.push(runFrom(third!, SPIN));
    await sleep(100);
    const answer = await runFrom(quick!, 'return 6 * 7;');
    assert.equal(resultOf(answer), 42, answer.text);
    const [spun, stoppedRunning, stoppedWaiting] = (await Promise.all(answers)).map((a) => a.text);
    assert.match(spun!, /time limit of 6 s/);
    assert.match(stoppedRunning!, /^Error: busy: the script ran longer than 0\.05 s/);
    assert.match(stoppedWaiting!, /^Error: busy: no script interpreter came free within 0\.05 s \(SCRIPT_SHORT_SECONDS\) while other scripts waited, and the slots for long-running scripts were taken; the script did not start/);
    await Promise.all([first, second, third, quick].map((c) => c!.close()));
  });

  test('the memory limit bounds live memory: allocating and dropping 300 × 1 MB, and parsing a 95 KB JSON text 2,000 times, succeed; keeping 200 MB alive fails, with or without API calls between; the next script runs', async () => {
    const s = await restart({ SCRIPT_TIMEOUT_SECONDS: '120' });
    const client = await s.connect('127.0.0.1');
    const dropped = await runFrom(client, 'let n = 0; for (let i = 0; i < 300; i++) { const s = "x".repeat(1 << 19) + i; n += s.length; } return n;');
    assert.equal(resultOf(dropped), 300 * (1 << 19) + 10 + 90 * 2 + 200 * 3);
    const parsed = await runFrom(client, `
      const items = [];
      for (let i = 0; i < 680; i++) items.push({ id: i, title: 'Book number ' + i, tags: ['poetry', 'science'], summary: 'word '.repeat(12) + i });
      const text = JSON.stringify(items);
      let total = 0;
      for (let i = 0; i < 2000; i++) total += JSON.parse(text).length;
      return [text.length, total];`);
    const [length, total] = resultOf(parsed) as [number, number];
    assert.ok(length > 90_000 && length < 100_000, `${length} characters`);
    assert.equal(total, 2000 * 680);
    for (const code of [
      'const keep = []; for (let i = 0; i < 200; i++) keep.push("x".repeat(1 << 19) + i); return keep.length;',
      'const keep = []; for (let i = 0; i < 200; i++) { keep.push("x".repeat(1 << 19) + i); if (i % 10 === 9) await api.get_owner({ ownerId: 1 }); } return keep.length;',
    ]) {
      const kept = await runFrom(client, code);
      assert.equal(kept.isError, true, code);
      assert.equal(kept.text, 'Error: script failed: it held more memory than the limit allows (SCRIPT_MAX_MEMORY_MB)', code);
      assert.equal(resultOf(await runFrom(client, 'return (await api.get_owner({ ownerId: 3 })).name;')), 'Owner C');
    }
  });
});
