// The fault proxy's faults are what the sync tests and the chaos run rely on, so each is
// checked here against a small upstream that counts what reached it (no browser).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, test } from 'node:test';
import { RANDOM_FAULTS, SAVES, SCORES, seededRandom, startFaultProxy } from './fault-proxy.mjs';

/** An upstream that commits every request it sees and answers like the API. */
let upstream;
let committed = 0;
before(async () => {
  upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      committed++;
      res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: true, path: req.url }));
    });
  });
  await new Promise((done) => upstream.listen(0, '127.0.0.1', done));
});
after(() => new Promise((done) => upstream.close(done)));

async function withProxy(run, options) {
  const proxy = await startFaultProxy(`http://127.0.0.1:${upstream.address().port}`, options);
  try {
    await run(proxy);
  } finally {
    await proxy.close();
  }
}

/** Polls `check` every 10 ms until it holds, for at most 5 s. */
async function until(check) {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('not reached within 5 s');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const post = (proxy, path, init = {}) =>
  fetch(proxy.origin + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', ...init });

/** The request reached the upstream (committed) or not, and what the client got. */
async function outcome(send) {
  const before = committed;
  try {
    const response = await send();
    const text = await response.text();
    let code = null;
    try {
      code = JSON.parse(text).error?.code ?? null;
    } catch {
      // Not JSON: an intermediary's page.
    }
    return { committed: committed > before, status: response.status, type: response.headers.get('content-type'), code, text };
  } catch {
    return { committed: committed > before, status: null };
  }
}

test('passes requests through, and queued rules apply to their own route in order', async () => {
  await withProxy(async (proxy) => {
    proxy.injectOn(SAVES, { kind: 'status', status: 503, code: 'UNAVAILABLE', retryAfter: 7 });
    assert.deepEqual(await outcome(() => post(proxy, '/api/scores')), {
      committed: true,
      status: 201,
      type: 'application/json',
      code: null,
      text: '{"ok":true,"path":"/api/scores"}',
    });
    const refused = await post(proxy, '/api/saves');
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get('retry-after'), '7');
    assert.equal((await refused.json()).error.code, 'UNAVAILABLE');
    assert.equal((await outcome(() => post(proxy, '/api/saves'))).status, 201);
    assert.deepEqual(
      proxy.requests.map((r) => [r.route, r.rule, r.status]),
      [
        [SCORES, 'pass', 201],
        [SAVES, 'status', 503],
        [SAVES, 'pass', 201],
      ],
    );
    assert.deepEqual(proxy.injected, { status: 1 });
  });
});

test('a response dropped after commit: the upstream has it, the client gets no answer', async () => {
  await withProxy(async (proxy) => {
    proxy.inject({ kind: 'drop-after-commit' });
    assert.deepEqual(await outcome(() => post(proxy, '/api/scores')), { committed: true, status: null });
    assert.equal(proxy.submissions.length, 1);
    assert.equal(proxy.submissions[0].abortedByClient, false);
  });
});

test("bare statuses and a captive portal's page: never forwarded, never the API's body", async () => {
  await withProxy(async (proxy) => {
    for (const status of [401, 403, 404, 405, 413, 415, 429, 502]) {
      proxy.inject({ kind: 'bare', status });
      const got = await outcome(() => post(proxy, '/api/scores'));
      assert.equal(got.status, status);
      assert.equal(got.committed, false, `${status} not forwarded`);
      assert.equal(got.code, null, `${status} has no API error body`);
    }
    proxy.inject({ kind: 'bare', status: 403, json: true });
    const gateway = await outcome(() => post(proxy, '/api/scores'));
    assert.equal(gateway.type, 'application/json');
    assert.deepEqual(JSON.parse(gateway.text), { message: 'Forbidden' });
    proxy.inject({ kind: 'html' });
    const portal = await outcome(() => post(proxy, '/api/scores'));
    assert.equal(portal.status, 200);
    assert.match(portal.type, /^text\/html/);
    assert.equal(portal.committed, false);
  });
});

test('a hang never answers: the client gives up (and is logged so), or release forwards it', async () => {
  await withProxy(async (proxy) => {
    proxy.inject({ kind: 'hang' }, { kind: 'hang', commit: true }, { kind: 'hang' });
    const start = Date.now();
    const abandoned = await outcome(() => post(proxy, '/api/scores', { signal: AbortSignal.timeout(300) }));
    assert.deepEqual(abandoned, { committed: false, status: null });
    const [hung] = proxy.submissions;
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(hung.abortedByClient, true);
    assert.ok(hung.endedAt - start >= 290, 'ended when the client gave up');

    const committedHang = await outcome(() => post(proxy, '/api/scores', { signal: AbortSignal.timeout(300) }));
    assert.deepEqual(committedHang, { committed: true, status: null });
    await until(() => proxy.waiting() === 0);

    const before = committed;
    const released = outcome(() => post(proxy, '/api/scores'));
    await until(() => proxy.waiting() === 1);
    assert.equal(committed, before, 'not forwarded while it hangs');
    proxy.release();
    assert.equal((await released).status, 201);
    assert.equal(proxy.waiting(), 0);
  });
});

test('hold and delay forward at once and answer later', async () => {
  await withProxy(async (proxy) => {
    proxy.inject({ kind: 'hold' }, { kind: 'delay', ms: 300 });
    const before = committed;
    const held = outcome(() => post(proxy, '/api/scores'));
    await until(() => proxy.waiting() === 1);
    assert.equal(committed, before + 1, 'forwarded while the answer is held');
    proxy.release();
    assert.equal((await held).status, 201);
    const start = Date.now();
    assert.equal((await outcome(() => post(proxy, '/api/scores'))).status, 201);
    assert.ok(Date.now() - start >= 300);
  });
});

test('offline refuses connections until it is over', async () => {
  await withProxy(async (proxy) => {
    proxy.setOffline(true);
    assert.deepEqual(await outcome(() => post(proxy, '/api/scores')), { committed: false, status: null });
    assert.equal(proxy.requests.length, 0, 'not even accepted');
    proxy.setOffline(false);
    assert.equal((await outcome(() => post(proxy, '/api/scores'))).status, 201);
  });
});

test('random faults follow the seed, cover every fault first and keep to their routes', async () => {
  const faults = { '403-bare': 1, '5xx': 1, '429-retry-after': 1, 'drop-after-commit': 1 };
  const run = async (seed) => {
    let drawn;
    await withProxy(
      async (proxy) => {
        proxy.randomFaults({ rate: 0.5, faults, routes: [SCORES], cover: true });
        for (let i = 0; i < 30; i++) await outcome(() => post(proxy, '/api/scores'));
        await outcome(() => post(proxy, '/api/saves'));
        drawn = proxy.requests.map((r) => r.fault);
      },
      { seed },
    );
    return drawn;
  };
  const first = await run(42);
  assert.deepEqual(await run(42), first, 'the same seed, the same faults');
  // Every other request gets the next uncovered fault, in the order given.
  assert.deepEqual(first.slice(0, 8), Object.keys(faults).flatMap((f) => [f, 'pass']));
  assert.equal(first.at(-1), 'pass', 'no faults outside the routes');
  assert.ok(first.slice(8, 30).some((f) => f !== 'pass'), 'random faults after the cover');
  assert.notDeepEqual(await run(43), first, 'another seed, other faults');
});

test('the generator is deterministic and uniform enough', () => {
  const a = seededRandom(7);
  const b = seededRandom(7);
  const draws = Array.from({ length: 10_000 }, () => a());
  assert.deepEqual(draws.slice(0, 5), Array.from({ length: 5 }, () => b()));
  assert.ok(draws.every((x) => x >= 0 && x < 1));
  const mean = draws.reduce((s, x) => s + x, 0) / draws.length;
  assert.ok(Math.abs(mean - 0.5) < 0.02, `mean ${mean}`);
  for (const name of Object.keys(RANDOM_FAULTS)) assert.ok(RANDOM_FAULTS[name](a).kind, name);
});
