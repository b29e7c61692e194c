// The installable offline shell: the Rust service worker precaches exactly the
// build, serves the shell offline (also when woken from stopped), never touches
// /api, picks up a new build through the update prompt, refuses an update whose
// bytes are not the build's, and Chrome finds the app installable. The first load
// paints the page's frame from the HTML and moves nothing, and the worker waits for it.
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import {
  DIST,
  ROOT,
  cacheContents,
  copyDist,
  expectedCache,
  launchBrowser,
  launchProfile,
  listOutput,
  openControlled,
  refuseUntilLowered,
  startServer,
} from './harness.mjs';

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

/** Stops every service worker and resolves once CDP reports ours stopped. */
async function stopWorkers(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('ServiceWorker.enable');
  const stopped = new Promise((done) => {
    cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }) => {
      if (versions.length > 0 && versions.every((v) => v.runningStatus === 'stopped')) done();
    });
  });
  await cdp.send('ServiceWorker.stopAllWorkers');
  await stopped;
  await cdp.detach();
}

/** The build's manifest as `{url: sha256}`. */
function manifestDigests(dist) {
  const manifest = JSON.parse(readFileSync(join(dist, 'precache-manifest.json'), 'utf8'));
  return Object.fromEntries(manifest.files.map((f) => [f.url, f.sha256]));
}

/** `{url: hex SHA-256 of the cached body}` for the cache `name`, hashed by the page. */
function cachedDigests(page, name) {
  return page.evaluate(async (name) => {
    if (!(await caches.has(name))) return null;
    const cache = await caches.open(name);
    const digests = {};
    for (const request of await cache.keys()) {
      const body = await (await cache.match(request)).arrayBuffer();
      const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', body));
      digests[new URL(request.url).pathname] = Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
    }
    return digests;
  }, name);
}

/**
 * Asks the registration for an update and resolves with the new worker's state once
 * it settles: `installed` (waiting) or `redundant` (its install failed).
 */
function updateAndSettle(page) {
  return page.evaluate(async () => {
    const registration = await navigator.serviceWorker.getRegistration();
    const found = new Promise((resolve) =>
      registration.addEventListener('updatefound', () => resolve(registration.installing), { once: true }),
    );
    await registration.update();
    const timeout = (what) => new Promise((resolve) => setTimeout(() => resolve(`no ${what} within 30 s`), 30_000));
    const worker = await Promise.race([found, timeout('update')]);
    if (typeof worker === 'string') return worker;
    const settled = new Promise((resolve) => {
      const check = () => ['installed', 'redundant'].includes(worker.state) && resolve(worker.state);
      worker.addEventListener('statechange', check);
      check();
    });
    return Promise.race([settled, timeout('install outcome')]);
  });
}

/**
 * A loopback proxy in front of the server that, while told to, answers one path
 * with an HTML page and status 200 — a captive portal's sign-in page or a broken
 * CDN, as a browser meets them in transit.
 */
async function startPortalProxy(upstreamOrigin) {
  const upstream = new URL(upstreamOrigin);
  let replaced = null;
  const server = createServer((req, res) => {
    if (replaced !== null && new URL(req.url, upstreamOrigin).pathname === replaced) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end('<!doctype html><title>Sign in to the Wi-Fi</title><p>Accept the terms to continue.</p>');
      return;
    }
    const forwarded = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', () => req.socket.destroy());
    req.pipe(forwarded);
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    /** Answers `path` with the portal page from now on (`null`: pass everything). */
    replace: (path) => {
      replaced = path;
    },
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(done);
      }),
  };
}

describe('offline shell', () => {
  let server;
  let context;
  let page;
  before(async () => {
    server = await startServer();
    context = await browser.newContext();
    page = await openControlled(context, server.origin);
  });
  after(async () => {
    await context?.close();
    await server?.stop();
  });

  test('the worker precaches exactly the build under the digest name', async () => {
    const expected = expectedCache(DIST);
    const manifest = JSON.parse(readFileSync(join(DIST, 'precache-manifest.json'), 'utf8'));
    assert.equal(manifest.cacheName, expected.name);
    assert.deepEqual(manifest.files.map((f) => f.url), expected.urls);
    assert.match(expected.name, /^keydo-precache-[0-9a-f]{64}$/);

    const caches = await cacheContents(page);
    assert.deepEqual(Object.keys(caches), [expected.name]);
    assert.deepEqual(caches[expected.name], [...expected.urls].sort());
    for (const must of ['/index.html', '/manifest.webmanifest', '/icons/icon-512.png']) {
      assert.ok(expected.urls.includes(must), `${must} is precached`);
    }
    assert.ok(expected.urls.some((u) => u.endsWith('.wasm')), 'the app wasm is precached');
    const state = await page.evaluate(async () => {
      const registration = await navigator.serviceWorker.ready;
      return {
        active: registration.active?.state,
        scope: registration.scope,
        script: navigator.serviceWorker.controller?.scriptURL,
      };
    });
    assert.equal(state.active, 'activated');
    assert.equal(state.scope, server.origin + '/');
    assert.equal(state.script, server.origin + '/sw.js');
    await page.getByText('Ready to play offline').waitFor();
  });

  test('offline, a reload renders the shell from the cache', async () => {
    await context.setOffline(true);
    try {
      await page.reload();
      await page.getByTestId('mode-zh').waitFor();
      assert.equal(await page.getByTestId('mode-time').count(), 1);
    } finally {
      await context.setOffline(false);
    }
  });

  test('offline, a freshly woken worker still serves the navigation', async () => {
    // Offline first: Playwright closes the page if the emulation changes while no worker runs.
    await context.setOffline(true);
    try {
      await stopWorkers(page);
      await page.reload();
      await page.getByTestId('mode-words').waitFor();
      const controlled = await page.evaluate(() => navigator.serviceWorker.controller !== null);
      assert.ok(controlled);
    } finally {
      await context.setOffline(false);
    }
  });

  test('a worker woken for a navigation instantiates only its fetch module; a later event loads the lifecycle module from the precache, once, offline', async () => {
    await context.setOffline(true);
    try {
      await stopWorkers(page);
      await page.reload();
      await page.getByTestId('mode-words').waitFor();
      // The version's one worker, woken by the navigation (its DevTools target outlives a stop).
      const workers = context.serviceWorkers();
      assert.equal(workers.length, 1);
      const [worker] = workers;
      // Watches, from here on, every asynchronous instantiation (the fetch module's is synchronous).
      await worker.evaluate(() => {
        self.instantiated = 0;
        for (const name of ['instantiate', 'instantiateStreaming']) {
          const original = WebAssembly[name];
          WebAssembly[name] = (...args) => {
            self.instantiated += 1;
            return original.apply(WebAssembly, args);
          };
        }
      });
      const instantiated = () => worker.evaluate(() => self.instantiated);
      // A message is one of the lifecycle module's events; these ask for nothing.
      const ping = () => page.evaluate(() => navigator.serviceWorker.controller.postMessage({ type: 'PING' }));
      await ping();
      const deadline = Date.now() + 10_000;
      while ((await instantiated()) === 0) {
        assert.ok(Date.now() < deadline, 'the first message loaded the lifecycle module within 10 s');
        await new Promise((done) => setTimeout(done, 50));
      }
      // Loaded by the message, so the navigation had not; and loaded once.
      await ping();
      await new Promise((done) => setTimeout(done, 500));
      assert.equal(await instantiated(), 1, 'the second message reused the module');
      // The page is still served offline.
      await page.reload();
      await page.getByTestId('mode-words').waitFor();
    } finally {
      await context.setOffline(false);
    }
  });

  test('a navigation the network never answers gets the cached shell after 3 s', async () => {
    // The worker's own fetch of the page hangs, as on a link that has gone quiet.
    const hung = [];
    const hang = (route) => hung.push(route);
    await context.route(server.origin + '/', hang);
    try {
      const started = Date.now();
      await page.reload({ timeout: 15_000 });
      await page.getByTestId('mode-quote').waitFor();
      const waited = Date.now() - started;
      assert.ok(hung.length >= 1, 'the navigation reached the network and hung there');
      assert.ok(waited >= 2_900, `answered after ${waited} ms, so not by the network`);
    } finally {
      await context.unroute(server.origin + '/', hang);
      await Promise.all(hung.map((route) => route.abort().catch(() => {})));
    }
  });

  test('the API is never answered from a cache', async () => {
    assert.equal(await page.evaluate(async () => (await fetch('/api/health')).status), 200);
    await context.setOffline(true);
    try {
      const outcome = await page.evaluate(() =>
        fetch('/api/health').then(
          (r) => `answered ${r.status}`,
          (e) => `failed: ${e.name}`,
        ),
      );
      assert.equal(outcome, 'failed: TypeError');
    } finally {
      await context.setOffline(false);
    }
    const caches = await cacheContents(page);
    const apiUrls = Object.values(caches).flat().filter((u) => u === '/api' || u.startsWith('/api/'));
    assert.deepEqual(apiUrls, []);
  });

});

test("the wasm names its dependencies' sources without the build machine's directories", () => {
  // Every module the build makes: the page's and the worker's (docs/performance.md,
  // "What loads first").
  const modules = readdirSync(DIST).filter((name) => name.endsWith('.wasm'));
  for (const worker of ['keydo_worker_bg.wasm', 'keydo_lifecycle_bg.wasm', 'keydo_flush_bg.wasm']) {
    assert.ok(modules.includes(worker), `${worker} is checked`);
  }
  assert.ok(modules.length > 4, "the page's main and on-demand modules, and the worker's three");
  let located = 0;
  for (const name of modules) {
    const bytes = readFileSync(join(DIST, name)).toString('latin1');
    assert.ok(!bytes.includes('/registry/src/'), `${name} names no cargo registry directory`);
    assert.ok(!bytes.includes(ROOT), `${name} names no checkout directory`);
    // Panic locations stay, relative: `crate-1.2.3/src/file.rs`.
    if (/[a-z_-]+-\d+\.\d+\.\d+\/src\/[a-z_/]+\.rs/.test(bytes)) located += 1;
  }
  assert.ok(located > 0, "some module names a dependency's source file");
});

test('Chrome finds the app installable', async () => {
  // Incognito contexts can never install an app: this one has a real profile.
  const server = await startServer();
  const context = await launchProfile();
  try {
    const page = await openControlled(context, server.origin);
    const cdp = await context.newCDPSession(page);
    const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
    assert.deepEqual(installabilityErrors, []);
    const { url, data } = await cdp.send('Page.getAppManifest');
    assert.equal(url, server.origin + '/manifest.webmanifest');
    const manifest = JSON.parse(data);
    assert.equal(manifest.display, 'standalone');
    assert.deepEqual(
      manifest.icons.map((i) => `${i.sizes} ${i.purpose}`),
      ['192x192 any', '512x512 any', '512x512 maskable'],
    );
  } finally {
    await context.close();
    await server.stop();
  }
});

describe('updates', () => {
  let server;
  let dist;
  let context;
  before(async () => {
    dist = copyDist();
    server = await startServer({ dist });
    context = await browser.newContext();
  });
  after(async () => {
    await context?.close();
    await server?.stop();
    rmSync(dist, { recursive: true, force: true });
  });

  /** A new deployment: one changed byte in one precached asset, then the real post-build step. */
  function deployUpdate() {
    const webManifest = listOutput(dist).find((f) => f.url.endsWith('.webmanifest'));
    appendFileSync(webManifest.path, '\n');
    execFileSync(join(ROOT, 'target', 'release', 'keydo-precache'), [dist]);
    return expectedCache(dist).name;
  }

  /** Clicks the update banner's button and waits for the reload onto `newCache`'s worker. */
  async function acceptUpdate(page, newCache) {
    const reloaded = page.waitForEvent('load');
    await page.getByTestId('update-reload').click();
    await reloaded;
    await page.waitForFunction(
      async (name) => (await caches.keys()).length === 1 && (await caches.has(name)),
      newCache,
      { timeout: 30_000, polling: 100 },
    );
    await page.getByTestId('mode-time').waitFor();
    const controller = await page.evaluate(async () => {
      const registration = await navigator.serviceWorker.getRegistration();
      return { waiting: registration.waiting !== null, active: registration.active.state };
    });
    assert.deepEqual(controller, { waiting: false, active: 'activated' });
  }

  test('a new build is offered, and accepting it reloads once onto the new cache', async () => {
    const page = await openControlled(context, server.origin);
    const oldCache = expectedCache(dist).name;
    assert.deepEqual(Object.keys(await cacheContents(page)), [oldCache]);
    assert.ok(await page.getByTestId('update-banner').isHidden());

    const newCache = deployUpdate();
    assert.notEqual(newCache, oldCache);

    // The page checks for updates when it becomes visible again.
    await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    await page.getByTestId('update-reload').waitFor({ timeout: 30_000 });
    assert.deepEqual(Object.keys(await cacheContents(page)).sort(), [newCache, oldCache].sort());

    let navigations = 0;
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) navigations += 1;
    });
    await acceptUpdate(page, newCache);
    assert.deepEqual(Object.keys(await cacheContents(page)), [newCache]);
    assert.ok(await page.getByTestId('update-banner').isHidden());
    assert.equal(navigations, 1, 'exactly one reload');
    await page.close();
  });

  test("offline, a waiting worker woken for the player's accept loads its lifecycle module from its precache and takes over", async () => {
    const page = await openControlled(context, server.origin);
    assert.deepEqual(Object.keys(await cacheContents(page)), [expectedCache(dist).name]);
    const newCache = deployUpdate();
    await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    await page.getByTestId('update-reload').waitFor({ timeout: 30_000 });

    // Offline first: Playwright closes the page if the emulation changes while no worker runs.
    await context.setOffline(true);
    try {
      // The waiting worker is woken by the accept's message, with no network to load from.
      await stopWorkers(page);
      await acceptUpdate(page, newCache);
    } finally {
      await context.setOffline(false);
    }
  });

  test("a lifecycle module that fails to load is loaded again on the next event: the player's second accept takes over", async () => {
    const page = await openControlled(context, server.origin);
    const newCache = deployUpdate();
    await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    await page.getByTestId('update-reload').waitFor({ timeout: 30_000 });
    // The waiting version's lifecycle wasm gone from its cache, and the network refusing it.
    const lifecycleWasm = '/keydo_lifecycle_bg.wasm';
    const removed = await page.evaluate(
      async ({ name, url }) => (await caches.open(name)).delete(url),
      { name: newCache, url: lifecycleWasm },
    );
    assert.ok(removed, "the lifecycle wasm was in the waiting version's cache");
    const refusal = await refuseUntilLowered(context, `**${lifecycleWasm}`);

    // Woken by the first accept, the worker evaluates the glue and fails to fetch the wasm.
    await stopWorkers(page);
    await page.getByTestId('update-reload').click();
    const deadline = Date.now() + 10_000;
    while (refusal.refused() === 0) {
      assert.ok(Date.now() < deadline, 'the woken worker asked for its lifecycle wasm within 10 s');
      await new Promise((done) => setTimeout(done, 50));
    }
    // The failed load leaves the update waiting and its offer up.
    await new Promise((done) => setTimeout(done, 1_000));
    const waiting = await page.evaluate(async () => (await navigator.serviceWorker.getRegistration()).waiting !== null);
    assert.ok(waiting, 'a failed load does not take over');
    await page.getByTestId('update-reload').waitFor();

    // The second accept loads the module again, from the network this time, and takes over.
    refusal.lower();
    await acceptUpdate(page, newCache);
    assert.equal(refusal.refused(), 1);
  });
});

test('an update whose one asset is replaced by an HTML page in transit: the new version does not install, the old one still plays offline, and the cache holds only verified bytes; with correct bytes the update then installs', async () => {
  const dist = copyDist();
  const server = await startServer({ dist });
  const proxy = await startPortalProxy(server.origin);
  const context = await browser.newContext();
  try {
    const page = await openControlled(context, proxy.origin);
    await page.getByText('Ready to play offline').waitFor();
    const oldCache = expectedCache(dist).name;
    const oldDigests = manifestDigests(dist);
    assert.deepEqual(await cachedDigests(page, oldCache), oldDigests);

    // A new deployment: one changed byte, then the real post-build step.
    const webManifest = listOutput(dist).find((f) => f.url.endsWith('.webmanifest'));
    appendFileSync(webManifest.path, '\n');
    execFileSync(join(ROOT, 'target', 'release', 'keydo-precache'), [dist]);
    const newCache = expectedCache(dist).name;
    assert.notEqual(newCache, oldCache);

    // In transit, the game's wasm turns into a sign-in page (status 200, HTML).
    const wasm = listOutput(dist).find((f) => /^\/keydo-app-.*\.wasm$/.test(f.url));
    proxy.replace(wasm.url);
    assert.equal(await updateAndSettle(page), 'redundant');
    assert.deepEqual(await page.evaluate(() => caches.keys()), [oldCache]);
    assert.deepEqual(await cachedDigests(page, oldCache), oldDigests);

    // The old version still plays offline, from a freshly woken worker.
    await context.setOffline(true);
    try {
      await stopWorkers(page);
      await page.reload();
      await page.getByTestId('mode-zh').waitFor();
      assert.ok(await page.evaluate(() => navigator.serviceWorker.controller !== null));
    } finally {
      await context.setOffline(false);
    }
    assert.deepEqual(await page.evaluate(() => caches.keys()), [oldCache]);

    // The right bytes arrive: the update installs, verified, beside the old version.
    proxy.replace(null);
    assert.equal(await updateAndSettle(page), 'installed');
    assert.deepEqual((await page.evaluate(() => caches.keys())).sort(), [newCache, oldCache].sort());
    assert.deepEqual(await cachedDigests(page, newCache), manifestDigests(dist));
    assert.deepEqual(await cachedDigests(page, oldCache), oldDigests);
  } finally {
    await context.close();
    await proxy.close();
    await server.stop();
    rmSync(dist, { recursive: true, force: true });
  }
});

test('an install that cannot fetch every file leaves no cache and no active worker', async () => {
  const dist = copyDist();
  // The build lists this icon, but the deployment lost it: the server answers 404.
  rmSync(join(dist, 'icons', 'icon-512.png'));
  const server = await startServer({ dist });
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    const statuses = [];
    const settled = new Promise((done) => {
      cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }) => {
        for (const v of versions) statuses.push(v.status);
        if (versions.some((v) => v.status === 'redundant' || v.status === 'activated')) done();
      });
    });
    await cdp.send('ServiceWorker.enable');
    await page.goto(server.origin + '/');
    await settled;
    const outcome = {
      state: statuses.at(-1),
      caches: await page.evaluate(() => caches.keys()),
    };
    assert.ok(statuses.includes('installing'), `the worker tried to install: ${statuses}`);
    assert.ok(!statuses.includes('activated'), `never activated: ${statuses}`);
    assert.deepEqual(outcome, { state: 'redundant', caches: [] });
  } finally {
    await context.close();
    await server.stop();
    rmSync(dist, { recursive: true, force: true });
  }
});

test('the first load: the frame paints from the HTML, its inlined style passes the CSP, the wasm is fetched once that frame is drawn, nothing shifts, and the worker is registered only after load', async () => {
  const server = await startServer();
  const context = await browser.newContext();
  try {
    await context.addInitScript(() => {
      const seen = { violations: [], shifts: 0, loadedAt: null, registeredAt: null };
      globalThis.__firstLoad = seen;
      document.addEventListener('securitypolicyviolation', (e) => seen.violations.push(e.violatedDirective));
      addEventListener('load', () => (seen.loadedAt = performance.now()));
      const register = ServiceWorkerContainer.prototype.register;
      ServiceWorkerContainer.prototype.register = function (...args) {
        seen.registeredAt ??= performance.now();
        return register.apply(this, args);
      };
      new PerformanceObserver((list) => {
        for (const shift of list.getEntries()) if (!shift.hadRecentInput) seen.shifts += shift.value;
      }).observe({ type: 'layout-shift', buffered: true });
    });
    const page = await context.newPage();
    // The frame without the wasm: the HTML alone shows what KeyDo is, styled.
    await page.route('**/*_bg.wasm', (route) => route.abort());
    await page.goto(server.origin + '/');
    await page.locator('.intro').waitFor();
    const frame = await page.evaluate(async () => {
      // The tab's icon is in the page, an SVG the browser can draw: no request for it.
      const icon = new Image();
      icon.src = document.querySelector('link[rel="icon"]').href;
      await icon.decode();
      return {
        background: getComputedStyle(document.body).backgroundColor,
        app: document.getElementById('app').childElementCount,
        icon: icon.src.slice(0, 19),
        iconWidth: icon.naturalWidth,
      };
    });
    assert.notEqual(frame.background, 'rgba(0, 0, 0, 0)', 'the inlined style sheet applies');
    assert.equal(frame.app, 0);
    assert.equal(frame.icon, 'data:image/svg+xml,');
    assert.ok(frame.iconWidth > 0, 'the inline icon draws');

    // Then the whole page: the game, its panels, the profile read, the worker ready.
    await page.unroute('**/*_bg.wasm');
    await page.reload();
    await page.getByTestId('prompt').waitFor();
    await page.getByTestId('profile-panel').waitFor({ state: 'attached' });
    await page.getByText('Ready to play offline').waitFor();
    const seen = await page.evaluate(() => globalThis.__firstLoad);
    assert.deepEqual(seen.violations, []);
    assert.equal(seen.shifts, 0);
    // The wasm's request goes out only once the page has painted the HTML's content:
    // after the paint step of that frame (`paintTime`; the entry's `startTime` is when
    // the frame reached the screen, later still).
    const order = await page.evaluate(() => ({
      painted: performance.getEntriesByName('first-contentful-paint')[0]?.paintTime,
      wasmFetched: performance.getEntriesByType('resource').find((e) => e.name.endsWith('_bg.wasm'))?.startTime,
    }));
    assert.ok(order.painted !== undefined && order.wasmFetched >= order.painted, JSON.stringify(order));
    assert.ok(seen.loadedAt !== null && seen.registeredAt >= seen.loadedAt, JSON.stringify(seen));
  } finally {
    await context.close();
    await server.stop();
  }
});

test('a page that draws no frame still fetches the wasm, a second after it starts, and plays', async () => {
  const server = await startServer();
  const context = await browser.newContext();
  try {
    // No animation frame for the page's loader, as in a tab opened in the background;
    // the game's own frames (asked for later) still come.
    await context.addInitScript(() => {
      const request = window.requestAnimationFrame;
      let first = true;
      window.requestAnimationFrame = function (callback) {
        if (first) {
          first = false;
          return 0;
        }
        return request.call(window, callback);
      };
    });
    const page = await context.newPage();
    await page.goto(server.origin + '/');
    await page.getByTestId('prompt').locator('.ch').first().waitFor();
    const wasmFetched = await page.evaluate(
      () => performance.getEntriesByType('resource').find((e) => e.name.endsWith('_bg.wasm'))?.startTime,
    );
    assert.ok(wasmFetched >= 1000 && wasmFetched < 3000, `the wasm fetched at ${wasmFetched} ms`);
  } finally {
    await context.close();
    await server.stop();
  }
});
