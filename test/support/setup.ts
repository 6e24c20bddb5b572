// Every test file: nothing may reach the network beyond loopback, and nothing lands in the real home.
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';

if (!process.env.MERCHANT_DESK_TEST_HOME) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'md-home-'));
  process.env.MERCHANT_DESK_TEST_HOME = home;
}

// Test files run in parallel and several use the real keychain for the same profile names: each file
// (and the CLI processes it spawns, which inherit the variable) gets its own keychain service name.
process.env.MERCHANT_DESK_KEYCHAIN_SERVICE = `merchant-desk-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
