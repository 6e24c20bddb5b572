// Which indexes the app's statements use, by SQLite's own EXPLAIN QUERY PLAN: every statement that a run of
// the tests prepared (captured by sql-capture.mjs) is planned against a database, and each index named in a
// plan is "used". An index no plan names is only kept up to date (bytes and a write per row for nothing).
//
//   MD_SQL_CAPTURE=/tmp/sql.jsonl NODE_OPTIONS="--import $PWD/test/bench/sql-capture.mjs" npx vitest run ...
//   node dist/test/bench/index-use.js --sql /tmp/sql.jsonl --db A.sqlite[,B.sqlite]
//
// Plan each statement on a fresh database (no statistics, as the app's own file) and on a generated year
// (ANALYZEd): an index counts as used if either plan names it. The statements' parameters are bound to
// NULL (the planner sees no values unless STAT4 statistics exist; it does not run them).
import Database from 'better-sqlite3';
import fs from 'node:fs';
import { parseArgs } from 'node:util';

const SKIP =
  /^\s*(EXPLAIN|CREATE|DROP|ALTER|PRAGMA|BEGIN|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE|ATTACH|DETACH|ANALYZE|VACUUM|REINDEX)\b/i;

/** The plan's details of one statement, its parameters bound to NULL; null when it cannot be planned here. */
function planOf(db: Database.Database, sql: string): string[] | null {
  let stmt: Database.Statement;
  try {
    stmt = db.prepare(`EXPLAIN QUERY PLAN ${sql}`);
  } catch {
    return null; // another schema's statement (a scratch or attached table), or more than one statement
  }
  // better-sqlite3 names no missing parameter: the names are read from the text (string literals aside).
  const named: Record<string, null> = {};
  for (const m of sql.replace(/'(?:[^']|'')*'/g, "''").matchAll(/[@:$]([A-Za-z_]\w*)/g)) named[m[1]!] = null;
  for (let anonymous = 0; anonymous < 100; anonymous++) {
    try {
      const args: unknown[] = Array.from({ length: anonymous }, () => null);
      if (Object.keys(named).length) args.push(named);
      return (stmt.all(...args) as { detail: string }[]).map((r) => r.detail);
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      if (!/Too few parameter values/.test(msg)) return null;
    }
  }
  return null;
}

export function indexUse(sqlFile: string, dbFiles: string[]) {
  const all = fs
    .readFileSync(sqlFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as string);
  const statements = all.filter((s) => !SKIP.test(s));
  const used = new Map<string, number>();
  const unplanned = new Set<string>();
  const indexes = new Map<string, string>();
  for (const file of dbFiles) {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    // The temporary tables a connection makes for itself (the incremental path's kind sets), so the
    // statements that join them can be planned.
    for (const sql of all.filter((s) => /^\s*CREATE TEMP/i.test(s)))
      try {
        db.exec(sql);
      } catch {
        // another schema's
      }
    for (const r of db
      .prepare("SELECT name, tbl_name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL")
      .all() as { name: string; tbl_name: string }[])
      indexes.set(r.name, r.tbl_name);
    for (const sql of statements) {
      const plan = planOf(db, sql);
      if (!plan) {
        unplanned.add(sql);
        continue;
      }
      unplanned.delete(sql);
      for (const d of plan)
        for (const m of d.matchAll(/USING (?:COVERING )?INDEX (\w+)/g)) used.set(m[1]!, (used.get(m[1]!) ?? 0) + 1);
    }
    db.close();
  }
  const unused = [...indexes].filter(([name]) => !used.has(name)).map(([name, table]) => ({ name, table }));
  return { statements: statements.length, unplanned: [...unplanned], used: Object.fromEntries(used), unused };
}

if (process.argv[1]?.endsWith('index-use.js')) {
  const { values } = parseArgs({ options: { sql: { type: 'string' }, db: { type: 'string' } }, strict: true });
  if (!values.sql || !values.db) throw new Error('--sql FILE (captured statements) and --db FILE[,FILE] are needed');
  process.stdout.write(JSON.stringify(indexUse(values.sql, values.db.split(',')), null, 2) + '\n');
}
