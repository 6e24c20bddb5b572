// A worker thread of verify-pool.ts: verifies whole the deliveries it is sent (verifyCallback, the same
// check as on the receiver's thread) and answers with their verifications. It touches no database.
import { parentPort } from 'node:worker_threads';
import { verifyCallback, type Verification } from './ingest.js';
import type { VerifyAnswer, VerifyJob } from './verify-pool.js';
import { messageOf } from '../errors.shared.js';

parentPort!.on('message', (job: VerifyJob) => {
  let answer: VerifyAnswer;
  try {
    const results: Verification[] = job.inputs.map((i) =>
      verifyCallback(
        {
          // A Buffer arrives as a plain Uint8Array: the bytes as received, read as they are on the receiver's thread.
          body:
            i.body instanceof Uint8Array ? Buffer.from(i.body.buffer, i.body.byteOffset, i.body.byteLength) : i.body,
          headers: i.headers,
          source: i.source,
        },
        job.keys,
      ),
    );
    answer = { id: job.id, results };
  } catch (e) {
    answer = { id: job.id, error: messageOf(e) };
  }
  parentPort!.postMessage(answer);
});
