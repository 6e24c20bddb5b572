// The benchmark's "service": signed callback bodies for the ingestion targets, and a client that posts
// them over loopback. Shared by run.ts (npm run bench) and ingest.ts (the ingestion loop on its own).
import crypto from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { signedString } from '../../main/service/signatures.js';
import { formatMinor } from '../../main/money/index.js';
import type { Generated } from './generate.js';

export interface SignedCallbacks {
  bodies: string[];
  headers: { hmac: string; rsa: string }[];
}

/**
 * One COMPLETED callback per target, with a valid HMAC. One RSA signature is genuine and the rest reuse
 * it (signing 10,000 with RSA-4096 would take ~65 s); a valid HMAC is enough, so the RSA check is skipped.
 */
export function signCallbacks(
  targets: Generated['targets'],
  signingKey: string,
  privateKey: crypto.KeyObject,
): SignedCallbacks {
  const bodies: string[] = [];
  const headers: { hmac: string; rsa: string }[] = [];
  const nowS = Math.floor(Date.now() / 1000);
  let realRsa = '';
  targets.forEach((x, i) => {
    const charge = Math.floor((x.amountMinor * 35 + 500) / 1000);
    const fields = {
      event: 'transaction.completed',
      merchant_reference: x.ref,
      internal_reference: x.internal,
      transaction_type: 'Collection',
      transaction_status: 'COMPLETED',
    };
    const amount = formatMinor(x.amountMinor, x.currency);
    bodies.push(
      JSON.stringify({
        event: fields.event,
        payload: {
          id: 5_000_000 + i,
          merchant_reference: x.ref,
          internal_reference: x.internal,
          transaction_type: 'Collection',
          request_currency: x.currency,
          request_amount: Number(amount),
          transaction_currency: x.currency,
          transaction_amount: Number(amount),
          transaction_charge: Number(formatMinor(charge, x.currency)),
          total_credit: Number(formatMinor(x.amountMinor - charge, x.currency)),
          charge_customer: false,
          provider_code: `CARD_${x.currency}`,
          customer_name: 'Bench Customer',
          transaction_status: 'COMPLETED',
          status_message: 'Approved',
        },
      }),
    );
    const s = signedString(fields);
    if (i === 0) realRsa = crypto.sign('sha512', Buffer.from(s), privateKey).toString('base64');
    headers.push({
      hmac: `t=${nowS},s=${crypto.createHmac('sha256', signingKey).update(s).digest('hex')}`,
      rsa: realRsa,
    });
  });
  return { bodies, headers };
}

export interface PostResult {
  ms: number;
  failed: number;
  statuses: Record<string, number>;
  /** The posting thread's CPU over the timed posting only (its requests were built before), in ms. */
  cpuMs: number;
}

/**
 * Posts callbacks from a worker thread (the "service"): `concurrency` keep-alive connections, each with
 * one request in flight, written as raw HTTP/1.1 bytes (like wrk or autocannon) so that the client's own
 * cost stays small next to the receiver's on a 2-core machine. Several URLs (serve instances): the
 * connections are spread over them in turn, as a reverse proxy's upstream block does. Each request's
 * bytes are made before the clock starts; answers are read as bytes (no text kept per connection, no
 * regular expression), and the thread's own CPU over the timed posting is returned (cpuMs).
 */
export function postCallbacks(
  url: string | string[],
  bodies: string[],
  headers: { hmac: string; rsa: string }[],
  concurrency: number,
): Promise<PostResult> {
  const code = `
const { parentPort, workerData } = require('node:worker_threads');
const net = require('node:net');
const { url, bodies, headers, concurrency } = workerData;
const urls = (Array.isArray(url) ? url : [url]).map((x) => new URL(x));
const u = urls[0];
const requests = bodies.map((body, i) => Buffer.from(
  'POST ' + u.pathname + ' HTTP/1.1\\r\\nhost: ' + u.host + '\\r\\ncontent-type: application/json\\r\\ncontent-length: ' + Buffer.byteLength(body) +
  '\\r\\nhmac-signature: ' + headers[i].hmac + '\\r\\nrsa-signature: ' + headers[i].rsa + '\\r\\nconnection: keep-alive\\r\\n\\r\\n' + body));
let next = 0, done = 0, failed = 0; const statuses = {};
// This thread's CPU (utime + stime, ticks of 1/100 s), read around the timed posting only.
const fs = require('node:fs');
const threadCpuMs = () => { const s = fs.readFileSync('/proc/thread-self/stat', 'latin1'); const f = s.slice(s.lastIndexOf(')') + 2).split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
const END = Buffer.from('\\r\\n\\r\\n');
const LENGTH = Buffer.from('content-length:');
/** The content-length of the head in b[from, end), read from its bytes (0 when there is none). */
function contentLength(b, from, end) {
  let at = -1;
  for (let i = from; i < end - LENGTH.length; i++) {
    let k = 0;
    while (k < LENGTH.length && (b[i + k] | 0x20) === LENGTH[k]) k++;
    if (k === LENGTH.length) { at = i + k; break; }
  }
  if (at < 0) return 0;
  while (b[at] === 0x20) at++;
  let n = 0;
  while (b[at] >= 0x30 && b[at] <= 0x39) n = n * 10 + b[at++] - 0x30;
  return n;
}
const cpu0 = threadCpuMs();
const t0 = performance.now();
const finish = () => { parentPort.postMessage({ ms: performance.now() - t0, failed, statuses, cpuMs: threadCpuMs() - cpu0 }); };
function connection(k) {
  const to = urls[k % urls.length];
  const sock = net.connect(Number(to.port), to.hostname);
  sock.setNoDelay(true);
  let buf = null;
  const send = () => { if (next < requests.length) sock.write(requests[next++]); else sock.end(); };
  sock.on('connect', send);
  sock.on('data', (d) => {
    buf = buf ? Buffer.concat([buf, d]) : d;
    let at = 0;
    for (;;) {
      const h = buf.indexOf(END, at);
      if (h < 0) break;
      const end = h + 4 + contentLength(buf, at, h);
      if (buf.length < end) break;
      const status = buf.toString('latin1', at + 9, at + 12);
      statuses[status] = (statuses[status] || 0) + 1;
      if (status !== '200') failed++;
      at = end;
      if (++done === requests.length) return finish();
      send();
    }
    buf = at < buf.length ? buf.subarray(at) : null;
  });
  sock.on('error', () => { failed++; if (++done === requests.length) finish(); });
}
for (let k = 0; k < concurrency; k++) connection(k);
`;
  return new Promise((resolve, reject) => {
    const w = new Worker(code, { eval: true, workerData: { url, bodies, headers, concurrency } });
    w.once('message', (m: PostResult) => {
      void w.terminate();
      resolve(m);
    });
    w.once('error', reject);
  });
}

export interface PacedResult {
  /** When serve answered each callback (Date.now(), in this process's clock); NaN if it never did. */
  acceptedAt: number[];
  /** Serve's HTTP status for each callback (0: the connection failed). */
  status: number[];
  ms: number;
}

/**
 * Posts callbacks at a steady `rate` per second (callback i is due at start + i/rate), over
 * `concurrency` keep-alive connections, from a worker thread, and records when each one was answered:
 * the time serve accepted it (stored in PostgreSQL, then 200). `forwardedFor` addresses are given in
 * turn as X-Forwarded-For, as a reverse proxy in front of serve (run with --trust-proxy 127.0.0.1) tells
 * it which service host a callback came from, so serve's per-source limit applies to each of them.
 */
export function postCallbacksPaced(
  url: string,
  signed: SignedCallbacks,
  o: { rate: number; concurrency: number; forwardedFor: string[] },
): Promise<PacedResult> {
  const code = `
const { parentPort, workerData } = require('node:worker_threads');
const net = require('node:net');
const { url, bodies, headers, rate, concurrency, forwardedFor } = workerData;
const u = new URL(url);
const n = bodies.length;
const requests = bodies.map((body, i) => Buffer.from(
  'POST ' + u.pathname + ' HTTP/1.1\\r\\nhost: ' + u.host + '\\r\\ncontent-type: application/json\\r\\ncontent-length: ' + Buffer.byteLength(body) +
  '\\r\\nhmac-signature: ' + headers[i].hmac + '\\r\\nrsa-signature: ' + headers[i].rsa +
  '\\r\\nx-forwarded-for: ' + forwardedFor[i % forwardedFor.length] + '\\r\\nconnection: keep-alive\\r\\n\\r\\n' + body));
const acceptedAt = new Array(n).fill(NaN);
const status = new Array(n).fill(0);
let next = 0, done = 0;
const t0 = performance.now();
const due = (i) => t0 + (i * 1000) / rate;
const free = [];
let timer = null;
const finish = () => parentPort.postMessage({ acceptedAt, status, ms: performance.now() - t0 });
function pump() {
  if (timer) clearTimeout(timer);
  timer = null;
  while (free.length && next < n && performance.now() >= due(next)) {
    const c = free.pop();
    c.inFlight.push(next);
    c.sock.write(requests[next++]);
  }
  if (next < n && free.length && !timer) timer = setTimeout(pump, Math.max(0, due(next) - performance.now()));
  if (next >= n) for (const c of free.splice(0)) c.sock.end();
}
function connection() {
  const c = { sock: net.connect(Number(u.port), u.hostname), inFlight: [] };
  c.sock.setNoDelay(true);
  let buf = '';
  c.sock.on('connect', () => { free.push(c); pump(); });
  c.sock.on('data', (d) => {
    buf += d.toString('latin1');
    for (;;) {
      const h = buf.indexOf('\\r\\n\\r\\n');
      if (h < 0) return;
      const head = buf.slice(0, h);
      const m = /content-length: *(\\d+)/i.exec(head);
      const len = m ? Number(m[1]) : 0;
      if (buf.length < h + 4 + len) return;
      const i = c.inFlight.shift();
      acceptedAt[i] = Date.now();
      status[i] = Number(head.slice(9, 12));
      buf = buf.slice(h + 4 + len);
      if (++done === n) return finish();
      free.push(c);
      pump();
    }
  });
  // Serve may close a keep-alive connection (an error, its keep-alive limits): what was in flight on it
  // was not answered (status 0, never counted as accepted), and a new connection takes its place, so
  // the run always ends.
  let gone = false;
  const drop = () => {
    if (gone) return;
    gone = true;
    const k = free.indexOf(c);
    if (k >= 0) free.splice(k, 1);
    for (const i of c.inFlight.splice(0)) { status[i] = 0; if (++done === n) return finish(); }
    if (next < n) connection();
  };
  c.sock.on('error', drop);
  c.sock.on('close', drop);
}
for (let k = 0; k < concurrency; k++) connection();
`;
  return new Promise((resolve, reject) => {
    const w = new Worker(code, {
      eval: true,
      workerData: { url, bodies: signed.bodies, headers: signed.headers, ...o },
    });
    w.once('message', (m: PacedResult) => {
      void w.terminate();
      resolve(m);
    });
    w.once('error', reject);
  });
}
