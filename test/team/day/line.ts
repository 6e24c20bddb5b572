// A line between a program and PostgreSQL that the day can break in the two ways an office network breaks:
// cut (every connection reset, new ones refused: a cable pulled, a server gone) and stalled (connections
// stay open and nothing more is forwarded either way, new ones are taken and hear nothing: a router dropping
// packets without a reset, where only the program's own time-outs notice). Restored, a stalled line
// forwards what it held, as TCP delivers once the path is back. Repointed at a failover, it forwards new
// connections to the promoted server and ends the ones it carried (test/support/tcp-proxy.ts: the one host
// name the desks and serve use, moved to the new primary).
import net from 'node:net';

export type LineState = 'up' | 'cut' | 'stalled';

export interface Line {
  port(): number;
  state(): LineState;
  cut(): Promise<void>;
  stall(): void;
  restore(): Promise<void>;
  /** New connections go to `port` from now on; the ones open now are ended. */
  repoint(port: number): void;
  close(): Promise<void>;
}

export async function startLine(host: string, targetPort: number): Promise<Line> {
  let port = targetPort;
  type Pair = { a: net.Socket; b: net.Socket; held: [net.Socket, Buffer][] };
  const pairs = new Set<Pair>();
  let server: net.Server | null = null;
  let listenPort = 0;
  let state: LineState = 'up';
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = net.createServer((inbound) => {
        const outbound = net.connect(port, host);
        const pair: Pair = { a: inbound, b: outbound, held: [] };
        pairs.add(pair);
        const end = () => {
          inbound.destroy();
          outbound.destroy();
          pairs.delete(pair);
        };
        // Forwarded by hand, so a stall holds every byte (a paused pipe may be resumed by the other side's drain).
        for (const [from, to] of [
          [inbound, outbound],
          [outbound, inbound],
        ] as const) {
          from.on('error', end);
          from.on('close', end);
          from.on('data', (d: Buffer) => (state === 'stalled' ? pair.held.push([to, d]) : to.write(d)));
        }
      });
      s.once('error', reject);
      s.listen(listenPort, '127.0.0.1', () => {
        listenPort = (s.address() as net.AddressInfo).port;
        server = s;
        resolve();
      });
    });
  await listen();
  const cut = async () => {
    state = 'cut';
    const s = server;
    server = null;
    for (const p of pairs) {
      p.a.destroy();
      p.b.destroy();
    }
    pairs.clear();
    await new Promise<void>((r) => (s ? s.close(() => r()) : r()));
  };
  return {
    port: () => listenPort,
    state: () => state,
    cut,
    stall() {
      if (state !== 'up') return;
      state = 'stalled';
    },
    async restore() {
      if (state === 'cut') await listen();
      state = 'up';
      for (const p of pairs) for (const [to, d] of p.held.splice(0)) to.write(d);
    },
    repoint(p) {
      port = p;
      for (const pair of pairs) {
        pair.a.destroy();
        pair.b.destroy();
      }
      pairs.clear();
    },
    close: cut,
  };
}
