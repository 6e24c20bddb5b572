// serve.sqlite holds serve's security log and nothing else (issue 30: serve gets only the migrations it
// uses), and a serve.sqlite an older serve made with the desk's whole schema keeps its counts: moved
// aside once, the counts copied, the old file left for the operator.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../main/store/sqlite/connection.js';
import { putSecurityBucket, securityTotals } from '../../main/store/sqlite/callbacks/security-log.js';
import { openServeSecurityLog } from '../../main/store/sqlite/serve-security-log.js';
import { tempDir } from '../support/tmp.js';

function tables(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return (
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]
    ).map((r) => r.name);
  } finally {
    db.close();
  }
}

const HOUR = 3_600_000;
const bucket = (reason: string, count: number) => ({
  bucket_start: 10 * HOUR,
  reason,
  source: '203.0.113.7',
  count,
  first_at: 10 * HOUR + 5,
  last_at: 10 * HOUR + 9,
  samples: '[]',
});

describe("serve's security log file", () => {
  it('a new serve.sqlite has the security log table only, at its own schema version', () => {
    const file = path.join(tempDir(), 'serve.sqlite');
    const { db, movedAside } = openServeSecurityLog(file);
    try {
      expect(movedAside).toBeUndefined();
      expect(db.pragma('user_version', { simple: true })).toBe(1);
    } finally {
      db.close();
    }
    expect(tables(file)).toEqual(['callback_security_log']);
  });

  it("a serve.sqlite with the desk's schema is moved aside once and its counts are kept", () => {
    const dir = tempDir();
    const file = path.join(dir, 'serve.sqlite');
    const old = openDatabase(file); // what serve opened before it had a schema of its own
    putSecurityBucket(old, bucket('bad_signature', 41));
    putSecurityBucket(old, bucket('rate_limited', 7));
    old.close();
    expect(tables(file)).toContain('collections');

    const first = openServeSecurityLog(file, () => Date.UTC(2026, 10, 27, 9, 30));
    try {
      expect(first.movedAside).toBe(path.join(dir, 'serve.sqlite.desk-schema-2026-11-27T09-30-00-000Z'));
      expect(securityTotals(first.db, 0)).toEqual(
        expect.arrayContaining([
          { reason: 'bad_signature', n: 41 },
          { reason: 'rate_limited', n: 7 },
        ]),
      );
    } finally {
      first.db.close();
    }
    expect(tables(file)).toEqual(['callback_security_log']);
    expect(tables(first.movedAside!)).toContain('collections');

    // The next start finds its own file: nothing moves again, nothing is counted twice.
    const again = openServeSecurityLog(file);
    try {
      expect(again.movedAside).toBeUndefined();
      expect(securityTotals(again.db, 0)).toEqual(
        expect.arrayContaining([
          { reason: 'bad_signature', n: 41 },
          { reason: 'rate_limited', n: 7 },
        ]),
      );
    } finally {
      again.db.close();
    }
    expect(fs.readdirSync(dir).filter((f) => f.includes('desk-schema'))).toHaveLength(1);
  });
});
