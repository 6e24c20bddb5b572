// SQL lives in the store folders only (issue 22): main/store/sqlite/ for SQLite, main/store/pg/ for
// PostgreSQL, and the migrations of each. A capability module says what to store and why and calls a
// store function; it holds no statement text, prepares nothing and sets no pragma. A reader looking for
// what touches a table finds it in one folder.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Where SQL may be written. */
const STORE = [/^main\/store\//, /^main\/team\/migrations\//, /^main\/team\/migrate\.ts$/];

/** A string literal that opens with an SQL statement's first word. */
const SQL_TEXT =
  /['"`]\s*(?:SELECT|INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|PRAGMA|BEGIN|COMMIT|ROLLBACK|WITH|ATTACH|DETACH|LISTEN|UNLISTEN|NOTIFY|VACUUM|SAVEPOINT|RELEASE|REVOKE|GRANT|SET|ANALYZE|REINDEX)\s/;
/** A call that runs SQL on a connection (`db.prepare`, `db.pragma`, `pool.query`); RegExp#exec is not one. */
const SQL_CALL = /\.(?:prepare|pragma|query)\(/;

function tsFiles(rel: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    const p = path.posix.join(rel, e.name);
    if (e.isDirectory()) tsFiles(p, out);
    else if (/\.tsx?$/.test(e.name)) out.push(p);
  }
  return out;
}

/** Lines outside the store that hold SQL, as `file:line: text`. */
function sqlOutsideStore(): string[] {
  const found: string[] = [];
  for (const file of tsFiles('main')) {
    if (STORE.some((re) => re.test(file))) continue;
    fs.readFileSync(path.join(root, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (/^\s*(?:\/\/|\*)/.test(line)) return; // comments may name a statement
        if (SQL_TEXT.test(line) || SQL_CALL.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
      });
  }
  return found;
}

describe('SQL lives in the store', () => {
  it('no module outside main/store/ and the migrations holds statement text or runs SQL', () => {
    expect(sqlOutsideStore()).toEqual([]);
  });

  it('the check sees a statement where one would be written', () => {
    // The patterns themselves, held against lines such as a capability module would have held.
    expect(SQL_TEXT.test("  const row = db.prepare('SELECT 1').get();")).toBe(true);
    expect(SQL_CALL.test('  await pool.query(sql, values);')).toBe(true);
    expect(SQL_CALL.test("  db.pragma('synchronous = NORMAL');")).toBe(true);
    expect(
      SQL_TEXT.test('  const m = /^(\\d+)$/.exec(text);') || SQL_CALL.test('  const m = /^(\\d+)$/.exec(text);'),
    ).toBe(false);
  });
});
