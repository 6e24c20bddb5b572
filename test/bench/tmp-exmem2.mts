import fs from 'node:fs';
import { reconcileAllInWorker } from '../../main/reconcile/index.js';
import { runExport } from '../../main/reports/index.js';
const PAGE=4096;
function mem(){ const [, r, s] = fs.readFileSync('/proc/self/statm','utf8').split(' ').map(Number); const m = process.memoryUsage(); return {rss: Math.round(r!*PAGE/1048576), file: Math.round(s!*PAGE/1048576), heapT: Math.round(m.heapTotal/1048576), ext: Math.round(m.external/1048576)}; }
async function ex(label: string) {
  let peak = mem(); const s = setInterval(()=>{ const m = mem(); if (m.rss > peak.rss) peak = m; }, 5);
  await runExport({ dbFile: '/tmp/exmem.sqlite', job: { kind: 'collections' }, out: '/tmp/exmem.csv', now: Date.now(), stalePendingAfterMs: 1800000 });
  clearInterval(s); console.log(label, 'peak', peak, 'after', mem());
}
console.log('start', mem());
if (process.argv[2] === 'fresh') await ex('fresh');
await reconcileAllInWorker('/tmp/exmem.sqlite', { now: Date.now(), stalePendingAfterMs: 1800000 });
await new Promise(r=>setTimeout(r,1500));
console.log('after reconcile', mem());
await ex('export1'); await ex('export2');
fs.rmSync('/tmp/exmem.csv');
