// A loopback HTTP proxy in front of keydo-server that injects faults into
// `POST /api/scores`, for the sync tests: the browser talks to the proxy's origin,
// the server sees the same Host and Origin, and each rule says what happens to the
// next score submission.
import { request as httpRequest, createServer } from 'node:http';

/**
 * Rules, consumed in order, one per score submission; when none is left, submissions
 * pass through. A rule is one of:
 *   { kind: 'drop-after-commit' }  forward, let the server commit, then cut the connection
 *   { kind: 'status', status, code, retryAfter? }  answer with this error, never forwarding
 *   { kind: 'hold' }  forward, but keep the response until `release()` is called
 */
export async function startFaultProxy(upstreamOrigin) {
  const upstream = new URL(upstreamOrigin);
  const rules = [];
  const submissions = [];
  const held = [];
  const server = createServer((req, res) => {
    const isScore = req.method === 'POST' && req.url === '/api/scores';
    const rule = isScore ? rules.shift() : undefined;
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (isScore) {
        submissions.push({ at: Date.now(), rule: rule?.kind ?? 'pass', body: JSON.parse(body) });
      }
      if (rule?.kind === 'status') {
        const headers = { 'content-type': 'application/json' };
        if (rule.retryAfter !== undefined) headers['retry-after'] = String(rule.retryAfter);
        res.writeHead(rule.status, headers);
        res.end(JSON.stringify({ error: { code: rule.code, message: 'injected by the test proxy', requestId: 'proxy' } }));
        return;
      }
      const forwarded = httpRequest(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          const answerChunks = [];
          answer.on('data', (c) => answerChunks.push(c));
          answer.on('end', () => {
            const send = () => {
              res.writeHead(answer.statusCode, answer.headers);
              res.end(Buffer.concat(answerChunks));
            };
            if (rule?.kind === 'drop-after-commit') req.socket.destroy();
            else if (rule?.kind === 'hold') held.push(send);
            else send();
          });
        },
      );
      forwarded.on('error', () => req.socket.destroy());
      forwarded.end(body);
    });
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    /** Adds rules for the next score submissions. */
    inject: (...next) => rules.push(...next),
    /** Every score submission seen, with the rule applied to it. */
    submissions,
    /** Lets the held responses through. */
    release: () => held.splice(0).forEach((send) => send()),
    close: () => new Promise((done) => {
      server.closeAllConnections();
      server.close(done);
    }),
  };
}
