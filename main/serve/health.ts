// GET /healthz for the proxy and the service manager: 200 while PostgreSQL answers, 503 when it does
// not (deliveries would be answered 503 too), with when each poll last succeeded, and whether the team
// record lost callbacks serve had acknowledged (a failover, a restore from backup: 'degraded' until
// serve put them back; still 200, since deliveries are taken).
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import type { PollerStatus } from '../poller/poller.js';
import { probe } from '../store/pg/connection.js';
import type { RecordReport } from './record-report.js';
import type { PollLeaseStatus } from './poll-lease.js';

const HEALTH_PATH = '/healthz';
const PING_TIMEOUT_MS = 2_000;

export interface Health {
  status: 'ok' | 'degraded';
  database: 'ok' | 'down';
  lastPoll: {
    balances: string | null;
    providers: string | null;
    /** 'standby' while another serve instance polls (it holds the poller lease). */
    connection: PollerStatus['connection']['state'] | 'off' | 'standby';
  };
  /**
   * Which instance polls (poll-lease.ts): 'active' this one, 'standby' another (holder), 'unknown' the team
   * database did not say (this one polls, and writes only if it holds the lease); null with --no-poll.
   */
  poller: PollLeaseStatus | null;
  /**
   * Whether the team record still holds every callback serve acknowledged (record-watch.ts): when it went
   * back in time, what serve lost and put back, in words; status is 'degraded' while it waits to be put back.
   */
  record: RecordReport | null;
  /** Seconds since serve started. */
  uptime: number;
}

async function ping(pool: pg.Pool): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      probe(pool).then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), PING_TIMEOUT_MS))),
    ]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function healthRoute(
  app: FastifyInstance,
  deps: {
    pool: pg.Pool;
    poller: () => PollerStatus | null;
    pollRole?: () => PollLeaseStatus | null;
    record?: () => RecordReport | null;
    startedAt: number;
  },
): void {
  app.get(HEALTH_PATH, { config: { rateLimit: false } }, async (_req, reply) => {
    const up = await ping(deps.pool);
    const poll = deps.poller();
    const record = deps.record?.() ?? null;
    const role = deps.pollRole?.() ?? null;
    const body: Health = {
      status: up && record?.state !== 'restoring' ? 'ok' : 'degraded',
      database: up ? 'ok' : 'down',
      lastPoll: {
        balances: iso(poll?.balances.lastSuccessAt ?? null),
        providers: iso(poll?.providers.lastSuccessAt ?? null),
        connection: poll ? poll.connection.state : role?.role === 'standby' ? 'standby' : 'off',
      },
      poller: role,
      record,
      uptime: Math.round((Date.now() - deps.startedAt) / 1000),
    };
    return reply
      .code(up ? 200 : 503)
      .header('cache-control', 'no-store')
      .send(body);
  });
}
