// Preloaded with `node --import` (through NODE_OPTIONS) into a test run: appends the text of every
// statement any better-sqlite3 connection prepares or execs to the file named by MD_SQL_CAPTURE, one
// JSON string a line, so index-use.ts can ask SQLite's EXPLAIN QUERY PLAN which indexes the app uses.
import fs from 'node:fs';
import Database from 'better-sqlite3';

const out = process.env.MD_SQL_CAPTURE;
if (out) {
  const seen = new Set();
  const note = (sql) => {
    if (typeof sql !== 'string' || seen.has(sql)) return;
    seen.add(sql);
    fs.appendFileSync(out, JSON.stringify(sql) + '\n');
  };
  for (const name of ['prepare', 'exec']) {
    const original = Database.prototype[name];
    Database.prototype[name] = function (sql, ...rest) {
      note(sql);
      return original.call(this, sql, ...rest);
    };
  }
}
