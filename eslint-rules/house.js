// The house's layering as an ESLint rule: docs/house.json names the parts of the tree (folders and files)
// and the imports that must never happen between two of them ("never": [from, to, why]). The rule resolves
// each relative import (and export ... from, and import()) of a file to the file it names, finds both
// parts, and reports an import the house forbids, with the house's reason. It follows re-exports: a module
// that only passes on what another part exports (export ... from) counts as importing that part, so a
// barrel in an allowed part does not hide a forbidden one behind it. docs/house.json mirrors the team's
// shared picture of the house (the one farm-studio draws): change both together.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const house = JSON.parse(fs.readFileSync(path.join(root, 'docs/house.json'), 'utf8'));

/** Each part's paths, relative to the root: a folder ends in '/', a file does not. */
const parts = Object.entries(house.parts).map(([name, p]) => ({ name, is: p.is }));

/** The part a root-relative path belongs to (the longest matching path wins), or null. */
export function partOf(rel) {
  let best = null;
  let len = -1;
  for (const p of parts)
    for (const is of p.is) {
      const hit = is.endsWith('/') ? rel.startsWith(is) : rel === is;
      if (hit && is.length > len) {
        best = p.name;
        len = is.length;
      }
    }
  return best;
}

/** never[from] = Map(to -> why). */
const never = new Map();
for (const [from, to, why] of house.never) {
  if (!never.has(from)) never.set(from, new Map());
  never.get(from).set(to, why);
}

/** The file a relative specifier names from `dir`: the .ts source of a .js import, or an index. */
function resolveFile(dir, spec) {
  const base = path.resolve(dir, spec);
  const tries = [base, base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), `${base}.ts`, `${base}.tsx`];
  tries.push(path.join(base, 'index.ts'));
  for (const f of tries) if (fs.existsSync(f) && fs.statSync(f).isFile()) return f;
  return base; // not found: judged by where it would be
}

const REEXPORT = /^\s*export\s+(?:type\s+)?(?:\*|\{[^}]*\})(?:\s+as\s+\w+)?\s+from\s+['"](\.[^'"]+)['"]/gm;
const reexportCache = new Map();

/** The files a module re-exports from (export ... from), followed through further re-exports. */
function reexportTargets(file, seen = new Set()) {
  if (seen.has(file)) return [];
  seen.add(file);
  let direct = reexportCache.get(file);
  if (!direct) {
    direct = [];
    let text = '';
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      // a file that does not exist re-exports nothing
    }
    for (const m of text.matchAll(REEXPORT)) direct.push(resolveFile(path.dirname(file), m[1]));
    reexportCache.set(file, direct);
  }
  const out = [];
  for (const t of direct) out.push(t, ...reexportTargets(t, seen));
  return out;
}

const rel = (f) => path.relative(root, f).split(path.sep).join('/');

export const houseRule = {
  meta: {
    type: 'problem',
    docs: { description: "the house's layering (docs/house.json): imports that must never happen between two parts" },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    const from = partOf(rel(file));
    const forbidden = from ? never.get(from) : undefined;
    if (!forbidden) return {};
    function check(node, spec) {
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const target = resolveFile(path.dirname(file), spec);
      for (const t of [target, ...reexportTargets(target)]) {
        const to = partOf(rel(t));
        const why = to && to !== from ? forbidden.get(to) : undefined;
        if (!why) continue;
        const via = t === target ? '' : ` (through ${rel(target)}, which re-exports ${rel(t)})`;
        context.report({ node, message: `${from} must never import ${to}: ${why}${via}` });
        return;
      }
    }
    return {
      ImportDeclaration: (n) => check(n, n.source.value),
      ExportNamedDeclaration: (n) => n.source && check(n, n.source.value),
      ExportAllDeclaration: (n) => check(n, n.source.value),
      ImportExpression: (n) => n.source.type === 'Literal' && check(n, n.source.value),
    };
  },
};

export default { rules: { never: houseRule } };
