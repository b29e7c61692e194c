// Reference only, for scripts/bench-shell.mjs: KeyDo's worker written with Workbox
// (npm's workbox-sw and its modules, served from /workbox/ beside it, never a CDN):
// the same precache, navigations network-only falling back to the precached
// /index.html, precached files from the cache, /api untouched, a sync listener.
importScripts('/workbox/workbox-sw.js');
workbox.setConfig({ modulePathPrefix: '/workbox/', debug: false });

const FILES = __PRECACHE_FILES__;

workbox.core.clientsClaim();
workbox.precaching.cleanupOutdatedCaches();
workbox.precaching.precacheAndRoute(FILES.map((f) => ({ url: f.url, revision: f.sha256 })));
workbox.routing.registerRoute(
  ({ request, url }) =>
    request.mode === 'navigate' && url.pathname !== '/api' && !url.pathname.startsWith('/api/'),
  new workbox.strategies.NetworkOnly(),
);
workbox.routing.setCatchHandler(async ({ request }) =>
  request.mode === 'navigate'
    ? (await workbox.precaching.matchPrecache('/index.html')) ?? Response.error()
    : Response.error(),
);

self.addEventListener('sync', (event) => {
  if (event.tag === 'flush-outbox') console.log('keydo: sync flush-outbox received');
});
