// npm run fuzz -- --minutes N [--seed S] [--only NAME]: the fuzz suite (test/fuzz/<boundary>.test.ts) for
// longer than `npm test` gives it, before a release. The time is shared out over the boundaries (one file
// each, run one after another in a private keychain session, scripts/with-keyring.sh); each file shares its
// time over its properties (test/fuzz/budget.ts, through FUZZ_SECONDS, FUZZ_SEED and FUZZ_REPORT). Prints
// the inputs tried and the failures per boundary, and exits 1 when any failed. Run it under `nice`.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const USAGE = 'usage: npm run fuzz -- --minutes N [--seed S] [--only BOUNDARY]';

function fail(message) {
  process.stderr.write(`fuzz: ${message}\n${USAGE}\n`);
  process.exit(2);
}

let values;
try {
  ({ values } = parseArgs({
    options: { minutes: { type: 'string' }, seed: { type: 'string' }, only: { type: 'string' } },
    strict: true,
  }));
} catch (e) {
  fail(e.message);
}
const minutes = Number(values.minutes);
if (!(minutes > 0)) fail('--minutes must be a number above 0');
const seed = values.seed ?? String(crypto.randomInt(1, 2 ** 31));
if (!/^\d+$/.test(seed)) fail('--seed must be a whole number');

const dir = path.join(ROOT, 'test', 'fuzz');
const boundaries = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => f.slice(0, -'.test.ts'.length))
  .filter((b) => !values.only || b === values.only)
  .sort();
if (boundaries.length === 0) fail(values.only ? `no boundary named ${values.only} in test/fuzz` : 'no fuzz files');

// Each file also starts its parts (a core, a sandbox, a server): about 30 s of each boundary's share is
// left for that, so the whole run ends near the time asked for.
const share = Math.max(10, Math.floor((minutes * 60) / boundaries.length) - 30);
const report = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'md-fuzz-')), 'report.jsonl');
process.stdout.write(
  `fuzz: ${boundaries.length} boundaries (${boundaries.join(', ')}), ${share} s of fuzzing each, seed ${seed}\n`,
);

function runBoundary(boundary) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(
      'bash',
      ['scripts/with-keyring.sh', 'npx', 'vitest', 'run', `test/fuzz/${boundary}.test.ts`, '--reporter=dot'],
      {
        cwd: ROOT,
        env: { ...process.env, FUZZ_SECONDS: String(share), FUZZ_SEED: seed, FUZZ_REPORT: report },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => resolve({ code, output, seconds: Math.round((Date.now() - started) / 1000) }));
  });
}

// Terminal colours in vitest's output.
const COLOURS = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

const results = [];
for (const boundary of boundaries) {
  const r = await runBoundary(boundary);
  const lines = fs.existsSync(report)
    ? fs
        .readFileSync(report, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
        .filter((l) => l.boundary === boundary)
    : [];
  const inputs = lines.reduce((n, l) => n + l.inputs, 0);
  const failedProperties = lines.filter((l) => l.failed).map((l) => l.property);
  const failed = r.code !== 0;
  results.push({ boundary, inputs, reported: lines.length > 0, failed, failedProperties, seconds: r.seconds });
  process.stdout.write(
    `${boundary.padEnd(18)} ${lines.length ? String(inputs).padStart(9) : '      n/a'} inputs  ` +
      `${failed ? `FAILED${failedProperties.length ? ` (${failedProperties.join(', ')})` : ''}` : 'ok'}  ${r.seconds} s\n`,
  );
  if (failed) process.stdout.write(r.output.replace(COLOURS, '').slice(-6000) + '\n');
}

const failures = results.filter((r) => r.failed).length;
const total = results.reduce((n, r) => n + r.inputs, 0);
process.stdout.write(
  `fuzz: ${total} inputs over ${results.length} boundaries, ${failures} failed (seed ${seed}; replay a failure with --seed ${seed} --only NAME)\n`,
);
if (results.some((r) => !r.reported))
  process.stdout.write('fuzz: n/a: that file did not report its inputs through test/fuzz/budget.ts\n');
process.exit(failures ? 1 : 0);
