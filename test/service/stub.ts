// A tiny HTTP server on 127.0.0.1 that answers from a script, for error shapes the sandbox may not make.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Reply =
  | { status: number; body?: string | object; headers?: Record<string, string> | undefined }
  | { hang: true }
  | { destroy: true };

export interface Stub {
  baseUrl: string;
  seen: SeenRequest[];
  /** Replies used in order; the last one repeats. */
  reply(...replies: (Reply | ((req: SeenRequest) => Reply))[]): void;
  close(): Promise<void>;
}

export async function startStub(): Promise<Stub> {
  const seen: SeenRequest[] = [];
  let script: (Reply | ((req: SeenRequest) => Reply))[] = [{ status: 500, body: 'no reply scripted' }];
  let next = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: SeenRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      seen.push(r);
      const step = script[Math.min(next++, script.length - 1)]!;
      const reply = typeof step === 'function' ? step(r) : step;
      if ('hang' in reply) return;
      if ('destroy' in reply) {
        req.socket.destroy();
        return;
      }
      const body =
        typeof reply.body === 'string' ? reply.body : reply.body === undefined ? '' : JSON.stringify(reply.body);
      const type = typeof reply.body === 'object' ? 'application/json' : 'text/plain';
      res.writeHead(reply.status, { 'content-type': type, ...reply.headers });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    seen,
    reply(...replies) {
      script = replies;
      next = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const ok = (data: unknown, code = 200): Reply => ({
  status: code,
  body: { code, status: code === 202 ? 'accepted' : 'success', message: 'ok', data },
});
export const fail = (
  status: number,
  message: string,
  data: unknown = null,
  headers?: Record<string, string>,
): Reply => ({
  status,
  body: { code: status, status: 'error', message, data },
  headers,
});
