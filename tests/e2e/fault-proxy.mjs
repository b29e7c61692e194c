// A loopback HTTP proxy in front of keydo-server that injects the faults real networks
// and intermediaries produce into any `/api` request: answers lost after the server
// committed, the API's own errors, a proxy's or captive portal's pages (bare 401, 403,
// 404, 405, 413, 415, an HTML 200), 429 with Retry-After, 5xx, requests that never
// answer, delays and a refused connection ("offline"). The browser talks to the
// proxy's origin; the server sees the same Host and Origin. Faults are either queued
// per route (the next request to that route gets the next rule) or drawn at random
// from a seeded generator, so a failing run can be repeated with its seed.
import { randomInt } from 'node:crypto';
import { request as httpRequest, createServer } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';

/** The score submission route, where `inject` puts its rules. */
export const SCORES = 'POST /api/scores';
/** Save creation. */
export const SAVES = 'POST /api/saves';
/** The save with the server's bests (restore healing). */
export const SAVE_ME = 'GET /api/saves/me';
/** Profile operations, several to a request, each with its key in the body. */
export const PROFILE_OPERATIONS = 'POST /api/saves/me/operations';

/**
 * A fault rule, by `kind`:
 *   pass                   forward unchanged
 *   drop-after-commit      forward, let the server commit, then cut the connection
 *   status                 { status, code, retryAfter? }: the API's error body, never forwarded
 *   bare                   { status, retryAfter?, json? }: an intermediary's answer without the
 *                          API's body (an HTML page, plain text, an empty 401, or with `json`
 *                          a gateway's `{"message"}`), never forwarded
 *   html                   a captive portal's HTML page with status 200, never forwarded
 *   hang                   never answered until `release()` (then forwarded) or the client gives
 *                          up; with `commit: true` it is forwarded and only the answer withheld
 *   hold                   forward, and keep the answer until `release()` (same as hang+commit)
 *   delay                  { ms }: forward, and answer `ms` later
 */
const KINDS = new Set(['pass', 'drop-after-commit', 'status', 'bare', 'html', 'hang', 'hold', 'delay']);

/**
 * The faults a random run draws from, by name; each makes a rule from the generator.
 * The names are what a run reports its fault counts by.
 */
export const RANDOM_FAULTS = {
  'drop-after-commit': () => ({ kind: 'drop-after-commit' }),
  '5xx': (random) =>
    pick(random, [
      { kind: 'status', status: 500, code: 'INTERNAL' },
      { kind: 'status', status: 503, code: 'UNAVAILABLE', retryAfter: 1 },
      { kind: 'bare', status: 502 },
      { kind: 'bare', status: 504 },
    ]),
  '429-retry-after': (random) => ({ kind: 'status', status: 429, code: 'RATE_LIMITED', retryAfter: 1 + Math.floor(random() * 3) }),
  '403-bare': (random) => ({ kind: 'bare', status: 403, json: random() < 0.5 }),
  '401-bare': () => ({ kind: 'bare', status: 401 }),
  '404-html': () => ({ kind: 'bare', status: 404 }),
  '405-bare': () => ({ kind: 'bare', status: 405 }),
  '413-bare': () => ({ kind: 'bare', status: 413 }),
  '415-bare': () => ({ kind: 'bare', status: 415 }),
  'html-200': () => ({ kind: 'html' }),
  hang: (random) => ({ kind: 'hang', commit: random() < 0.5 }),
  delay: (random) => ({ kind: 'delay', ms: 200 + Math.floor(random() * 2_800) }),
};

/** A seeded generator of numbers in [0, 1) (mulberry32): the same seed, the same draws. */
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A seed for a new run: `KEYDO_FAULT_SEED` if set (to repeat a run), else a fresh one. */
export function newSeed() {
  const fixed = process.env.KEYDO_FAULT_SEED;
  return fixed !== undefined && fixed !== '' ? Number(fixed) >>> 0 : randomInt(2 ** 32);
}

/** A body as text, undoing the server's `Content-Encoding`. */
function decoded(encoding, body) {
  if (encoding === 'br') return brotliDecompressSync(body).toString();
  if (encoding === 'gzip') return gunzipSync(body).toString();
  return body.toString();
}

export function pick(random, choices) {
  return choices[Math.floor(random() * choices.length)];
}

/** A copy of `items` in a random order drawn from `random` (Fisher–Yates). */
export function shuffle(random, items) {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** What an intermediary sends for `status`, without the API's error body. */
function bareAnswer({ status, retryAfter, json }) {
  const title = `${status} ${STATUS_TEXT[status] ?? 'Error'}`;
  const headers = {};
  if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
  if (status === 405) headers.allow = 'GET, HEAD';
  if (json) {
    // An API gateway's own JSON, which is not the API's error body.
    headers['content-type'] = 'application/json';
    return { headers, body: JSON.stringify({ message: STATUS_TEXT[status] ?? 'Error' }) };
  }
  if (status === 401) return { headers, body: '' };
  if (status === 415 || status === 429) {
    headers['content-type'] = 'text/plain; charset=utf-8';
    return { headers, body: `${title}\n` };
  }
  headers['content-type'] = 'text/html';
  return {
    headers,
    body: `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`,
  };
}

const STATUS_TEXT = {
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Not Allowed',
  413: 'Request Entity Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Temporarily Unavailable',
  504: 'Gateway Time-out',
};

const CAPTIVE_PORTAL =
  '<!doctype html><html><head><title>Welcome</title></head><body><h1>Welcome to the free Wi-Fi</h1>' +
  '<form method="post" action="/login"><label><input type="checkbox" name="terms"> I accept the terms</label>' +
  '<button>Connect</button></form></body></html>';

/**
 * Starts the proxy in front of `upstreamOrigin`. `seed` seeds the random faults
 * (default: `newSeed()`); it is on the returned object for reports.
 */
export async function startFaultProxy(upstreamOrigin, { seed = newSeed() } = {}) {
  const upstream = new URL(upstreamOrigin);
  const random = seededRandom(seed);
  /** Queued rules per route. */
  const queues = new Map();
  /** Random faults: { rate, faults: [[name, weight]], routes: Set | null } or null. */
  let chaos = null;
  let offline = false;
  /** Every `/api` request: when, which route, what was done, how it ended. */
  const requests = [];
  /** The score submissions among them, with their parsed bodies. */
  const submissions = [];
  /** Fault counts by name (random faults) or kind (queued rules). */
  const injected = {};
  const waiting = new Set();
  const sockets = new Set();

  const decide = (route) => {
    const queued = queues.get(route)?.shift();
    if (queued) return { rule: queued, name: queued.kind };
    if (!chaos || (chaos.routes && !chaos.routes.has(route))) return null;
    if (chaos.uncovered.length > 0) {
      // Every other request of a route, so no entry's backoff grows long meanwhile.
      const faultedLast = chaos.faultedLast.has(route);
      faultedLast ? chaos.faultedLast.delete(route) : chaos.faultedLast.add(route);
      if (faultedLast) return null;
      const name = chaos.uncovered.shift();
      return { rule: RANDOM_FAULTS[name](random), name };
    }
    if (random() >= chaos.rate) return null;
    const total = chaos.faults.reduce((sum, [, weight]) => sum + weight, 0);
    let draw = random() * total;
    for (const [name, weight] of chaos.faults) {
      draw -= weight;
      if (draw < 0) return { rule: RANDOM_FAULTS[name](random), name };
    }
    return null;
  };

  const server = createServer((req, res) => {
    const path = new URL(req.url, 'http://proxy').pathname;
    const isApi = path === '/api' || path.startsWith('/api/');
    const route = `${req.method} ${path}`;
    const decision = isApi ? decide(route) : null;
    const rule = decision?.rule;
    if (decision && rule.kind !== 'pass') injected[decision.name] = (injected[decision.name] ?? 0) + 1;
    const log = isApi
      ? {
          at: Date.now(),
          route,
          rule: rule?.kind ?? 'pass',
          fault: decision?.name ?? 'pass',
          idempotencyKey: req.headers['idempotency-key'],
          authorization: req.headers.authorization,
          endedAt: null,
          status: null,
          abortedByClient: false,
          cutByProxy: false,
        }
      : null;
    if (log) requests.push(log);
    res.on('close', () => {
      log && (log.endedAt = Date.now());
      if (log && !res.writableFinished) log.abortedByClient = !log.cutByProxy;
    });
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (log && route === SCORES) submissions.push(Object.assign(log, { body: JSON.parse(body) }));
      if (log && route === PROFILE_OPERATIONS) log.body = JSON.parse(body);
      const answer = (status, headers, text) => {
        log && (log.status = status);
        res.writeHead(status, headers);
        res.end(text);
      };
      const cut = () => {
        log && (log.cutByProxy = true);
        req.socket.destroy();
      };
      switch (rule?.kind) {
        case 'status': {
          const headers = { 'content-type': 'application/json' };
          if (rule.retryAfter !== undefined) headers['retry-after'] = String(rule.retryAfter);
          const error = { code: rule.code, message: 'injected by the test proxy', requestId: 'proxy' };
          return answer(rule.status, headers, JSON.stringify({ error }));
        }
        case 'bare': {
          const { headers, body: text } = bareAnswer(rule);
          return answer(rule.status, headers, text);
        }
        case 'html':
          return answer(200, { 'content-type': 'text/html; charset=utf-8' }, CAPTIVE_PORTAL);
        case 'hang':
          if (!rule.commit) return park(res, () => forward());
          break;
        case undefined:
        case 'pass':
        case 'drop-after-commit':
        case 'hold':
        case 'delay':
          break;
        default:
          throw new Error(`unknown fault kind ${rule.kind}`);
      }
      forward();

      function forward() {
        const forwarded = httpRequest(
          { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
          (upstreamAnswer) => {
            const answerChunks = [];
            upstreamAnswer.on('data', (c) => answerChunks.push(c));
            upstreamAnswer.on('end', () => {
              // What the server answered, even when the proxy cuts it off the client.
              if (log) log.answer = decoded(upstreamAnswer.headers['content-encoding'], Buffer.concat(answerChunks));
              const send = () => answer(upstreamAnswer.statusCode, upstreamAnswer.headers, Buffer.concat(answerChunks));
              if (rule?.kind === 'drop-after-commit') cut();
              else if (rule?.kind === 'hold' || (rule?.kind === 'hang' && rule.commit)) park(res, send);
              else if (rule?.kind === 'delay') setTimeout(send, rule.ms);
              else send();
            });
          },
        );
        forwarded.on('error', cut);
        forwarded.end(body);
      }
    });
  });

  /** Keeps `res` unanswered until `release()` runs `send`, or the client gives up. */
  function park(res, send) {
    // The client may have given up before the upstream answered.
    if (res.closed || res.destroyed) return;
    const parked = { send };
    waiting.add(parked);
    res.on('close', () => waiting.delete(parked));
  }

  server.on('connection', (socket) => {
    if (offline) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));

  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    seed,
    /** Queues rules for the next score submissions. */
    inject: (...rules) => queue(SCORES, rules),
    /** Queues rules for the next requests to `route` ("POST /api/saves"). */
    injectOn: (route, ...rules) => queue(route, rules),
    /**
     * Draws faults at random for requests with no queued rule: each request, with
     * probability `rate`, gets one of `faults` (names of RANDOM_FAULTS → weight), on
     * `routes` only if given. With `cover`, every other request of a route first gets the
     * next of `faults` in order, until each was injected once. `null` stops random faults.
     */
    randomFaults(options) {
      chaos = options && {
        rate: options.rate,
        faults: Object.entries(options.faults),
        routes: options.routes ? new Set(options.routes) : null,
        // Each fault once first, in the order given, so even a short run sees the first ones.
        uncovered: options.cover ? Object.keys(options.faults) : [],
        faultedLast: new Set(),
      };
      for (const [name] of chaos?.faults ?? []) {
        if (!RANDOM_FAULTS[name]) throw new Error(`unknown random fault ${name}`);
      }
    },
    /** Offline: every connection is refused (reset at once), open ones are cut. */
    setOffline(on) {
      offline = on;
      if (!on) return;
      for (const log of requests) if (log.endedAt === null) log.cutByProxy = true;
      sockets.forEach((socket) => socket.destroy());
    },
    /** Every `/api` request seen: route, fault, idempotency key, status, how it ended. */
    requests,
    /** The score submissions among `requests`, each with its parsed `body`. */
    submissions,
    /** How many faults were injected, by name. */
    injected,
    /** Requests parked by `hang` or `hold` right now. */
    waiting: () => waiting.size,
    /** Lets every parked request go on: held answers are sent, hung requests forwarded. */
    release: () => [...waiting].forEach((parked) => (waiting.delete(parked), parked.send())),
    close: () =>
      new Promise((done) => {
        waiting.clear();
        server.closeAllConnections();
        server.close(done);
      }),
  };

  function queue(route, rules) {
    for (const rule of rules) {
      if (!KINDS.has(rule.kind)) throw new Error(`unknown fault kind ${rule.kind}`);
    }
    if (!queues.has(route)) queues.set(route, []);
    queues.get(route).push(...rules);
  }
}
