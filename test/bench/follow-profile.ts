// bench:follow --profile DIR: where one desk's CPU goes while it follows the load. The desk's main process
// is started with the inspector on a port of its own (--inspect, 127.0.0.1), its window is the page the
// bench drives over CDP; V8's sampling profiler runs in both from the load's start until the desk holds
// every callback and a second more (the profiler's own CPU would keep it from being quiet), and each
// profile is written as DIR/<label>.<main|window>.cpuprofile (open it in Chromium's DevTools,
// Performance) with a summary of self time by function and by file beside it. Run the bench with node
// --experimental-websocket (Node 20: the inspector is reached over a WebSocket):
//   npm run build && bash scripts/with-keyring.sh node --experimental-websocket dist/test/bench/follow.js \
//     --phases single --profile /tmp/follow-profile
// The profiler costs CPU of its own, and it samples the wall clock (a thread waiting on fsync or
// descheduled by a busy machine is counted where it waits): a profiled round says where the time goes,
// not how much there is.
import fs from 'node:fs';
import path from 'node:path';
import type { CDPSession, Page } from 'playwright-core';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples?: number[];
  timeDeltas?: number[];
  startTime: number;
  endTime: number;
}

/** A DevTools-protocol session to a Node inspector (WebSocket: node --experimental-websocket runs the bench). */
class InspectorSession {
  private nextId = 1;
  private readonly waiting = new Map<number, (v: unknown) => void>();
  private constructor(private readonly ws: WebSocket) {
    ws.addEventListener('message', (e: MessageEvent) => {
      const m = JSON.parse(String(e.data)) as { id?: number; result?: unknown; error?: { message: string } };
      if (m.id !== undefined) this.waiting.get(m.id)?.(m.error ? new Error(m.error.message) : m.result);
    });
  }

  static async open(port: number): Promise<InspectorSession> {
    const WS = (globalThis as { WebSocket?: typeof WebSocket }).WebSocket;
    if (!WS) throw new Error('--profile needs a WebSocket: run the bench with node --experimental-websocket');
    const list = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
      webSocketDebuggerUrl: string;
    }[];
    const ws = new WS(list[0]!.webSocketDebuggerUrl);
    await new Promise((resolve, reject) => {
      ws.addEventListener('open', resolve, { once: true });
      ws.addEventListener('error', reject, { once: true });
    });
    return new InspectorSession(ws);
  }

  async send<T>(method: string, params: object = {}): Promise<T> {
    const id = this.nextId++;
    const answer = new Promise<unknown>((resolve) => this.waiting.set(id, resolve));
    this.ws.send(JSON.stringify({ id, method, params }));
    const v = await answer;
    this.waiting.delete(id);
    if (v instanceof Error) throw v;
    return v as T;
  }

  close(): void {
    this.ws.close();
  }
}

/** Self time per function and per file, the top `n` of each, as text. */
export function summarize(p: CpuProfile, n = 40): string {
  const byNode = new Map<number, number>();
  const samples = p.samples ?? [];
  const deltas = p.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) byNode.set(samples[i]!, (byNode.get(samples[i]!) ?? 0) + (deltas[i] ?? 0));
  const fn = new Map<string, number>();
  const file = new Map<string, number>();
  let total = 0;
  for (const node of p.nodes) {
    const us = byNode.get(node.id) ?? 0;
    if (!us) continue;
    const f = node.callFrame;
    const short = f.url.replace(/^.*\/(dist|node_modules)\//, '$1/');
    const name = `${f.functionName || '(anonymous)'} ${short}:${f.lineNumber + 1}`;
    fn.set(name, (fn.get(name) ?? 0) + us);
    const fileKey = short || `(${f.functionName})`;
    file.set(fileKey, (file.get(fileKey) ?? 0) + us);
    if (f.functionName !== '(idle)') total += us;
  }
  const top = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(
        ([k, us]) => `${(us / 1000).toFixed(1).padStart(9)} ms ${((100 * us) / total).toFixed(1).padStart(5)} %  ${k}`,
      )
      .join('\n');
  return `busy ${(total / 1000).toFixed(1)} ms of ${((p.endTime - p.startTime) / 1000).toFixed(0)} ms\n\nby function (self)\n${top(fn)}\n\nby file (self)\n${top(file)}\n`;
}

/** A profile of one desk's main process and window, started now; `stop` writes both. */
export class DeskProfile {
  private constructor(
    private readonly main: InspectorSession,
    private readonly window: CDPSession,
  ) {}

  static async start(inspectPort: number, page: Page): Promise<DeskProfile> {
    const main = await InspectorSession.open(inspectPort);
    const window = await page.context().newCDPSession(page);
    await main.send('Profiler.enable');
    await main.send('Profiler.setSamplingInterval', { interval: 200 });
    await main.send('Profiler.start');
    await window.send('Profiler.enable');
    await window.send('Profiler.setSamplingInterval', { interval: 200 });
    await window.send('Profiler.start');
    return new DeskProfile(main, window);
  }

  async stop(dir: string, label: string): Promise<void> {
    fs.mkdirSync(dir, { recursive: true });
    const base = path.join(dir, label.replace(/[^a-z0-9]+/gi, '-'));
    const main = await this.main.send<{ profile: CpuProfile }>('Profiler.stop');
    const window = (await this.window.send('Profiler.stop')) as unknown as { profile: CpuProfile };
    for (const [which, p] of [
      ['main', main.profile],
      ['window', window.profile],
    ] as const) {
      fs.writeFileSync(`${base}.${which}.cpuprofile`, JSON.stringify(p));
      fs.writeFileSync(`${base}.${which}.txt`, summarize(p));
    }
    this.main.close();
    await this.window.detach().catch(() => {});
  }
}
