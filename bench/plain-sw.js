// Reference only, for scripts/bench-shell.mjs: a plain JavaScript service worker
// doing the same work as KeyDo's Rust worker (same precache, same routes), so the
// benchmark can compare start-up and offline navigation against it.
const CACHE_NAME = __CACHE_NAME__;
const URLS = __PRECACHE_URLS__;
const PATHS = new Set(URLS);

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE_NAME);
    try {
      await cache.addAll(URLS.map((url) => new Request(url, { cache: 'reload' })));
    } catch (e) {
      await caches.delete(CACHE_NAME);
      throw e;
    }
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith('keydo-precache-') && name !== CACHE_NAME) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin) return;
  if (url.pathname === '/api' || url.pathname.startsWith('/api/')) return;
  if (request.mode === 'navigate') {
    event.respondWith(fetch(request).catch(async () => {
      const cached = await (await caches.open(CACHE_NAME)).match('/index.html');
      if (cached) return cached;
      throw new TypeError('offline and no cached shell');
    }));
  } else if (!url.search && PATHS.has(url.pathname)) {
    event.respondWith((async () => {
      const cached = await (await caches.open(CACHE_NAME)).match(request);
      return cached ?? fetch(request);
    })());
  }
});

self.addEventListener('sync', (event) => {
  if (event.tag === 'flush-outbox') console.log('keydo: sync flush-outbox received');
});
