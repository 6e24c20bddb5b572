// The house's layering (docs/house.json) is an ESLint rule (eslint-rules/house.js), so a wrong import fails
// npm test: for every "never" of the house, a snippet placed in the first part importing a module of the
// second is refused with the house's reason; an import the house allows is not; and a module that only
// re-exports a forbidden part does not hide it.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const eslint = new ESLint({ cwd: root });
const house = JSON.parse(fs.readFileSync(path.join(root, 'docs/house.json'), 'utf8')) as {
  parts: Record<string, { is: string[] }>;
  never: [string, string, string][];
};

async function houseErrors(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, filePath) });
  return result!.messages.filter((m) => m.ruleId === 'house/never').map((m) => m.message);
}

/** A source file of the part: the first .ts file under its first folder (or the part's file itself). */
function fileOf(part: string): string {
  for (const is of house.parts[part]!.is) {
    if (!is.endsWith('/')) return is;
    const found = fs
      .readdirSync(path.join(root, is), { recursive: true, encoding: 'utf8' })
      .filter((n) => /\.tsx?$/.test(n) && !n.endsWith('.d.ts'))
      .sort()[0];
    if (found) return is + found.split(path.sep).join('/');
  }
  throw new Error(`no source file in part ${part}`);
}

/** Where a probe of the part is linted as if it were a file there (never written). */
function probeIn(part: string): string {
  const folder = house.parts[part]!.is.find((is) => is.endsWith('/'))!;
  return `${folder}${PROBE}`;
}
const PROBE = 'house-probe.ts';

function specifier(from: string, to: string): string {
  const rel = path
    .relative(path.dirname(path.join(root, from)), path.join(root, to))
    .split(path.sep)
    .join('/');
  return (rel.startsWith('.') ? rel : `./${rel}`).replace(/\.tsx?$/, '.js');
}

describe("the house's layering is enforced by lint", () => {
  it.each(house.never)('%s never imports %s', async (from, to, why) => {
    const probe = probeIn(from);
    const errors = await houseErrors(`import * as x from '${specifier(probe, fileOf(to))}';\nexport { x };\n`, probe);
    expect(errors).toEqual([`${from} must never import ${to}: ${why}`]);
  });

  it('an import the house allows passes (team reads the store)', async () => {
    const probe = probeIn('Team');
    expect(
      await houseErrors(`import * as x from '${specifier(probe, fileOf('Store'))}';\nexport { x };\n`, probe),
    ).toEqual([]);
  });

  it('a module that only re-exports a forbidden part does not hide it', async () => {
    // A module of collections (which team may import) re-exporting reconcile (which team may not).
    // Written for this test and removed after it.
    const barrel = 'main/collections/house-probe-barrel.ts';
    const file = path.join(root, barrel);
    fs.writeFileSync(file, `export * from '${specifier(barrel, fileOf('Reconcile'))}';\n`);
    try {
      const probe = probeIn('Team');
      const errors = await houseErrors(`import * as x from '${specifier(probe, barrel)}';\nexport { x };\n`, probe);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(
        /^Team must never import Reconcile: .* \(through main\/collections\/house-probe-barrel\.ts, which re-exports main\/reconcile\//,
      );
    } finally {
      fs.rmSync(file, { force: true });
    }
  });
});
