// What the desk's file spends its bytes on: each table and index, from SQLite's dbstat virtual table
// (every page of the file, with its owner), in bytes per collection. `npm run bench` adds it to its
// result; alone: `node dist/test/bench/file-bytes.js --db FILE` prints the table for a kept database.
import Database from 'better-sqlite3';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

export interface ObjectBytes {
  name: string;
  /** 'table' or 'index' (an automatic index of a UNIQUE or PRIMARY KEY constraint counts as an index). */
  type: string;
  bytes: number;
  perCollection: number;
}

/** The file's bytes by table and index, largest first, and per collection; `free` is the freelist. */
export function fileBytes(file: string): { total: number; perCollection: number; objects: ObjectBytes[] } {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const collections = (db.prepare('SELECT count(*) FROM collections').pluck().get() as number) || 1;
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const free = (db.pragma('freelist_count', { simple: true }) as number) * pageSize;
    const rows = db
      .prepare(
        `SELECT d.name, coalesce(m.type, 'table') AS type, sum(d.pgsize) AS bytes
           FROM dbstat d LEFT JOIN sqlite_schema m ON m.name = d.name
          GROUP BY d.name ORDER BY bytes DESC`,
      )
      .all() as { name: string; type: string; bytes: number }[];
    const objects = rows.map((r) => ({ ...r, perCollection: Math.round(r.bytes / collections) }));
    if (free)
      objects.push({ name: '(free pages)', type: 'free', bytes: free, perCollection: Math.round(free / collections) });
    const total = objects.reduce((s, o) => s + o.bytes, 0);
    return { total, perCollection: Math.round(total / collections), objects };
  } finally {
    db.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { db: { type: 'string' } }, strict: true });
  if (!values.db) throw new Error('--db FILE: the database to measure');
  const r = fileBytes(values.db);
  const mb = (b: number) => (b / 1048576).toFixed(1);
  process.stdout.write(`| table or index | type | MB | bytes per collection |\n| --- | --- | --- | --- |\n`);
  for (const o of r.objects) process.stdout.write(`| ${o.name} | ${o.type} | ${mb(o.bytes)} | ${o.perCollection} |\n`);
  process.stdout.write(`| **the file** | | **${mb(r.total)}** | **${r.perCollection}** |\n`);
}
