// /__sandbox/...: the test controls over HTTP (no keys; plainly not the service's paths).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SandboxCore } from './core.js';
import { Controls } from './controls.js';
import type { CallbackMode, CompleteOutcome, FaultSpec, FinalStatus } from './types.js';

export function registerControlRoutes(app: FastifyInstance, core: SandboxCore): void {
  const c = new Controls(core);
  const body = (req: FastifyRequest): Record<string, unknown> => {
    const b = req.body;
    return b && typeof b === 'object' && !Array.isArray(b) ? (b as Record<string, unknown>) : {};
  };
  const ref = (req: FastifyRequest) => (req.params as { ref: string }).ref;

  app.get('/__sandbox/state', async () => c.state());
  app.post('/__sandbox/config', async (req) =>
    c.config(body(req) as { callback_url?: string | null; strict_options?: boolean }),
  );
  app.post('/__sandbox/clock/advance', async (req) => c.advanceClock(body(req).ms as number));
  app.post('/__sandbox/faults', async (req) => c.addFault(body(req) as unknown as FaultSpec));
  app.delete('/__sandbox/faults', async () => {
    c.clearFaults();
    return { faults: [] };
  });
  app.post('/__sandbox/callbacks/mode', async (req) => {
    const b = body(req);
    c.setCallbackMode(b.mode as CallbackMode, b.delay_ms as number | undefined);
    return { mode: core.callbacks.mode, delay_ms: core.callbacks.delayMs };
  });
  app.post('/__sandbox/callbacks/release', async () => ({ released: await c.releaseCallbacks() }));
  app.post('/__sandbox/callbacks/resend', async (req) => {
    c.resendCallback(body(req).merchant_reference as string);
    return { queued: true };
  });
  app.get('/__sandbox/callbacks/log', async () => c.callbackLog());
  app.get('/__sandbox/collections/:ref', async (req) => c.collection(ref(req)));
  app.post('/__sandbox/collections/:ref/complete', async (req) =>
    c.complete(ref(req), body(req).outcome as CompleteOutcome),
  );
  app.post('/__sandbox/collections/:ref/flip', async (req) => c.flip(ref(req), body(req).status as FinalStatus));
}
