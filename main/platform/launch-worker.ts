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
    // The loader's text is built from `load` so that a reader of imports (farm-studio, bundlers) does not
    // take the two dynamic imports it runs inside the worker for imports of this module.
    const load = (href: string) => ['im', 'port(', JSON.stringify(href), ')'].join('');
    const code = `${load(tsxApi)}.then((m) => { m.register(); return ${load(entry)}; })`;
    return new Worker(code, { eval: true, ...opts });
  }
  return new Worker(new URL(`./${name}.js`, callerUrl), opts);
}
