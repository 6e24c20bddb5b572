// Starts a worker thread from a module next to the caller: `<name>.js` in dist, or `<name>.ts` from the
// TypeScript sources (vitest, tsx), where tsx's ESM loader is registered inside the worker first.
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';

export function launchWorker(callerUrl: string, name: string, data: unknown, resourceLimits?: ResourceLimits): Worker {
  const opts = { workerData: data, ...(resourceLimits ? { resourceLimits } : {}) };
  if (callerUrl.endsWith('.ts')) {
    const require = createRequire(callerUrl);
    const tsxApi = pathToFileURL(
      path.join(path.dirname(require.resolve('tsx/package.json')), 'dist/esm/api/index.mjs'),
    ).href;
    const entry = new URL(`./${name}.ts`, callerUrl).href;
    const code = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
    return new Worker(code, { eval: true, ...opts });
  }
  return new Worker(new URL(`./${name}.js`, callerUrl), opts);
}
