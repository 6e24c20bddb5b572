// serve's verifier (callbacks/verify-pool.ts) with worker threads: a busy receiver's groups are verified
// whole on the workers, HMAC checks included, so its event loop only reads, commits and answers (issue
// 31); a small group is checked on the receiver's thread as before. Either way each delivery gets the
// outcome the receiver's own check gives it: a genuine callback verified, a forged or unsigned one
// refused, a malformed one malformed. Real worker threads, real HMAC.
// Run: bash scripts/with-keyring.sh npx vitest run test/serve/verify-pool.test.ts
import { afterEach, describe, expect, it } from 'vitest';
import { callbackVerifier, OFF_THREAD_GROUP, type CallbackVerifier } from '../../main/callbacks/verify-pool.js';
import { verifyCallback, type IngestInput } from '../../main/callbacks/ingest.js';
import { callbackBody, hmacHeader, SIGNING_KEY } from '../callbacks/support.js';

const keys = { signingKey: SIGNING_KEY, servicePublicKey: null };
let verifier: CallbackVerifier | null = null;

afterEach(async () => {
  await verifier?.close();
  verifier = null;
});

/** `n` deliveries as the receiver hands them over: raw bytes and headers; the last three are bad. */
function deliveries(n: number): IngestInput[] {
  return Array.from({ length: n }, (_, i) => {
    const body = callbackBody(`POOL-${process.pid}-${n}-${i}`);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (i === n - 1) headers['hmac-signature'] = hmacHeader(body, 'another merchant key');
    else if (i !== n - 2) headers['hmac-signature'] = hmacHeader(body);
    const text = i === n - 3 ? '{"event": "transaction.completed", "payload": ' : JSON.stringify(body);
    return { body: Buffer.from(text), headers, source: 'callback' };
  });
}

describe("serve's verifier with worker threads", () => {
  it('verifies a busy group whole on the workers, HMAC included, with the outcomes of the check on the receiver thread', async () => {
    verifier = callbackVerifier({ threads: 1 });
    const group = deliveries(OFF_THREAD_GROUP * 2);
    const results = await verifier.verify(group, keys);
    expect(results).toEqual(group.map((d) => verifyCallback(d, keys)));
    expect(results.slice(-3).map((r) => r.result)).toEqual(['malformed', 'bad_signature', 'bad_signature']);
    expect(results.filter((r) => r.result === 'verified')).toHaveLength(group.length - 3);
    expect(verifier.stats()).toEqual({ inline: 0, offThread: group.length, threads: 1 });
  });

  it('checks a small group on the receiver thread, starting no worker', async () => {
    verifier = callbackVerifier({ threads: 1 });
    const group = deliveries(4);
    const results = await verifier.verify(group, keys);
    expect(results).toEqual(group.map((d) => verifyCallback(d, keys)));
    expect(verifier.stats()).toEqual({ inline: 4, offThread: 0, threads: 0 });
  });

  it('checks every group on the receiver thread with no worker threads (the desktop, --verify-threads 0)', async () => {
    verifier = callbackVerifier({ threads: 0 });
    const group = deliveries(OFF_THREAD_GROUP * 2);
    expect(await verifier.verify(group, keys)).toEqual(group.map((d) => verifyCallback(d, keys)));
    expect(verifier.stats()).toEqual({ inline: group.length, offThread: 0, threads: 0 });
  });
});
