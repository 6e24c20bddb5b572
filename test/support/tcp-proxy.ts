// One host name in front of a database that moves: a TCP endpoint on a fixed loopback port that the desks
// and serve connect to, forwarded to whichever server is the primary now. Repointing it at a failover
// ends the connections it carried (as a virtual IP moving, or a DNS name pointing elsewhere, leaves the
// old ones dead) and sends new ones to the new primary.
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** Where new connections go from now on; the ones open now are ended. */
  repoint(targetPort: number): void;
  close(): Promise<void>;
}

export async function startProxy(targetPort: number, host = '127.0.0.1'): Promise<TcpProxy> {
  let target = targetPort;
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target, host);
    open.add(client);
    open.add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', end);
    upstream.on('error', end);
    client.on('close', end);
    upstream.on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    repoint(p) {
      target = p;
      for (const s of open) s.destroy();
      open.clear();
    },
    close() {
      for (const s of open) s.destroy();
      open.clear();
      return new Promise((r) => server.close(() => r()));
    },
  };
}
