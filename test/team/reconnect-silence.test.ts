// What is backed off and what is not (team/reconnect.ts): a failure the team database answered waits
// longer each time; silence (nobody answered, or the server is going away or not up yet) is tried again
// every second, and the steady probe calls back as soon as something listens on the database's port.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { translatePgError } from '../../main/team/errors.js';
import { isSilence, PROBE_EVERY_MS, reachabilityWatch, retryDelay } from '../../main/team/reconnect.js';

const pgError = (code: string | undefined, message: string) => Object.assign(new Error(message), { code });
const translated = (code: string | undefined, message: string) => translatePgError(pgError(code, message), 'pull');

describe('silence or an answer', () => {
  it('a refused, reset or timed-out connection, a shutdown and a start-up are silence: tried every second', () => {
    for (const e of [
      translated('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'),
      translated('ECONNRESET', 'read ECONNRESET'),
      translated(undefined, 'timeout exceeded when trying to connect'),
      translated(undefined, 'Connection terminated unexpectedly'),
      translated('57P01', 'terminating connection due to administrator command'),
      translated('57P03', 'the database system is starting up'),
    ]) {
      expect(isSilence(e), e.message).toBe(true);
      expect(retryDelay(e, 20, 500, 15_000)).toBe(PROBE_EVERY_MS);
    }
  });

  it('a refusal, TLS that does not check and a busy writer are answers: backed off, doubling to the longest wait', () => {
    for (const e of [
      translated('28P01', 'password authentication failed'),
      translated('42501', 'permission denied for table events'),
      translated('55P03', 'canceling statement due to lock timeout'),
      translated('57014', 'canceling statement due to statement timeout'),
      translated('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'),
      new Error('something else'),
    ]) {
      expect(isSilence(e), e.message).toBe(false);
      expect(retryDelay(e, 1, 500, 15_000)).toBe(500);
      expect(retryDelay(e, 20, 500, 15_000)).toBe(15_000);
    }
  });
});

describe('the steady probe', () => {
  const servers: net.Server[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
  });

  it('calls back once the port takes connections, not before', async () => {
    // A port nothing listens on yet.
    const probe = net.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise((r) => probe.close(r));

    const watch = reachabilityWatch(`postgres://127.0.0.1:${port}/team`);
    let calledAt: number | null = null;
    watch.whenReachable(() => (calledAt = Date.now()));
    await new Promise((r) => setTimeout(r, 2_500));
    expect(calledAt).toBeNull();

    const up = net.createServer((s) => s.destroy());
    servers.push(up);
    await new Promise<void>((r) => up.listen(port, '127.0.0.1', r));
    const listening = Date.now();
    for (const end = listening + 5_000; calledAt === null && Date.now() < end;)
      await new Promise((r) => setTimeout(r, 20));
    expect(calledAt).not.toBeNull();
    // Within about one probe period of the port opening (the limit is 2 s).
    expect(calledAt! - listening).toBeLessThanOrEqual(2_000);
    watch.stop();
  });
});
