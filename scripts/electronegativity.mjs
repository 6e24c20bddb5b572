// The Electron shell checked by a tool made for it: @doyensec/electronegativity over the built main
// process (dist/main), the preload (dist/preload/preload) and the page the main window loads
// (dist/renderer/index.html, whose CSP meta tag the tool evaluates). Run after `npm run build`; npm test
// does.
//
// It fails when any file does not parse (the tool itself only prints parse errors and checks the rest)
// and when a finding is not justified in scripts/electronegativity.json, or a justification there no
// longer matches what the tool finds (so the file says what is true of the shell today).
//
// Three things the tool does not do on its own:
// - Its parsers stop at private class fields (#x) and `#x in o`, which the build keeps (target ES2023).
//   The check reads a copy down-levelled to ES2021 by TypeScript's transpiler into a temporary folder;
//   only class-private syntax changes, every `new BrowserWindow`, webPreferences and call stays.
// - It cannot find the Electron version in dist/ (no package.json there): the check passes the version
//   package.json pins, so the rules judge Electron's defaults of the version we ship.
// - It reaches the network twice: translations from S3 on start, and Electron's release list for
//   AVAILABLE_SECURITY_FIXES_GLOBAL_CHECK. CI runs offline and a check must say the same thing on every
//   run, so the bundled English texts are used and that one check is left out (npm's lock pins
//   Electron; its advisories are npm audit's job).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Module, { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(root, 'package.json'));
const CONFIG = path.join(root, 'scripts', 'electronegativity.json');
/** What the check reads: a built folder, its name in the checked copy, and which files of it. */
const INPUTS = [
  { from: 'dist/main', to: 'main', ext: '.js' },
  { from: 'dist/preload/preload', to: 'preload', ext: '.js' },
  // The renderer's scripts are the page's own (React), not Electron's API: the page itself is enough.
  { from: 'dist/renderer', to: 'renderer', ext: '.html' },
];
const OFFLINE_EXCLUDED = ['AvailableSecurityFixesGlobalCheck'];

/** A finding the config accepts, with the reason; `count` findings of `check` in `file`, no more, no fewer. */
function readConfig() {
  const config = JSON.parse(fs.readFileSync(CONFIG, 'utf8'));
  if (!Array.isArray(config.justified)) throw new Error(`${CONFIG}: "justified" must be a list`);
  return config.justified.map((j, i) => {
    const where = `${CONFIG}: justified[${i}]`;
    for (const field of ['check', 'file', 'reason']) {
      if (typeof j[field] !== 'string' || j[field].trim() === '')
        throw new Error(`${where}.${field} must be a non-empty text`);
    }
    const count = j.count ?? 1;
    if (!Number.isInteger(count) || count < 1) throw new Error(`${where}.count must be a whole number of at least 1`);
    return { check: j.check, file: j.file, reason: j.reason, count };
  });
}

/** Copies the inputs into `dir`, scripts down-levelled so the tool's parsers read them. */
function downLevelCopy(dir) {
  let files = 0;
  for (const { from, to, ext } of INPUTS) {
    const src = path.join(root, from);
    if (!fs.existsSync(src)) throw new Error(`${from} is missing: run \`npm run build\` first`);
    for (const rel of fs.readdirSync(src, { recursive: true })) {
      if (!rel.endsWith(ext)) continue;
      const target = path.join(dir, to, rel);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      files++;
      if (ext !== '.js') {
        fs.copyFileSync(path.join(src, rel), target);
        continue;
      }
      const text = fs.readFileSync(path.join(src, rel), 'utf8');
      const out = ts.transpileModule(text, {
        fileName: rel,
        reportDiagnostics: true,
        compilerOptions: { target: ts.ScriptTarget.ES2021, module: ts.ModuleKind.Preserve, allowJs: true },
      });
      if (out.diagnostics?.length) {
        const message = ts.flattenDiagnosticMessageText(out.diagnostics[0].messageText, '\n');
        throw new Error(`${from}/${rel} could not be down-levelled for the check: ${message}`);
      }
      fs.writeFileSync(target, out.outputText);
    }
  }
  return files;
}

/** The tool's translations, from the texts it bundles (its own loader also fetches them from S3). */
function useBundledTexts() {
  const i18nFile = require.resolve('@doyensec/electronegativity/dist/locales/i18n.js');
  const i18n = createRequire(i18nFile)('i18n');
  const local = new Module(i18nFile);
  local.filename = i18nFile;
  local.loaded = true;
  local.exports = async function bundledTexts() {
    i18n.configure({
      locales: ['en-US'],
      defaultLocale: 'en-US',
      directory: path.dirname(i18nFile),
      updateFiles: false,
      objectNotation: true,
      retryInDefaultLocale: true,
      register: globalThis,
    });
    i18n.setLocale('en-US');
  };
  require.cache[i18nFile] = local;
}

function electronVersion() {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const version = pkg.devDependencies?.electron ?? pkg.dependencies?.electron;
  if (!/^\d+\.\d+\.\d+$/.test(version ?? ''))
    throw new Error(`package.json must pin electron to one version, found ${version}`);
  return version;
}

async function main() {
  const justified = readConfig();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'merchant-desk-electronegativity-'));
  try {
    const files = downLevelCopy(dir);
    useBundledTexts();
    const run = require('@doyensec/electronegativity');
    const result = await run({
      input: dir,
      isRelative: true,
      electronVersionOverride: electronVersion(),
      excludeFromScan: OFFLINE_EXCLUDED,
      customScan: [],
    });
    const problems = [];
    // Every file must parse: a file the tool cannot read is a file it did not check.
    for (const e of result.errors) problems.push(`${path.relative(dir, e.file)} did not parse: ${e.message}`);

    // Findings by check and file; each with where it is (in the checked copy) and what the tool says.
    const found = new Map();
    for (const issue of result.issues) {
      const file = issue.file.split(path.sep).join('/');
      const key = `${issue.id} ${file}`;
      const list = found.get(key) ?? [];
      list.push(`${file}:${issue.location.line}:${issue.location.column} ${issue.description} ${issue.shortenedURL}`);
      found.set(key, list);
    }
    for (const j of justified) {
      const key = `${j.check} ${j.file}`;
      const at = found.get(key) ?? [];
      found.delete(key);
      if (at.length !== j.count) {
        problems.push(
          `${j.check} in ${j.file}: scripts/electronegativity.json justifies ${j.count} finding(s), the tool found ` +
            `${at.length}${at.length ? ` (${at.join('; ')})` : ''}: fix the shell or correct the justification`,
        );
      }
    }
    for (const [key, at] of found) {
      for (const where of at) {
        problems.push(
          `${key.split(' ')[0]} at ${where}: fix it in the shell or justify it in scripts/electronegativity.json`,
        );
      }
    }
    if (problems.length > 0) {
      console.error(`electronegativity: ${problems.length} problem(s) in ${files} file(s):`);
      for (const p of problems) console.error(`- ${p}`);
      process.exitCode = 1;
      return;
    }
    console.log(
      `electronegativity: ${files} files parsed, ${result.globalChecks + result.atomicChecks} checks, ` +
        `${result.issues.length} finding(s), each justified in scripts/electronegativity.json`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(`electronegativity: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
