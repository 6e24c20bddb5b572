// Every test file: nothing may reach the network beyond loopback, and nothing lands in the real home.
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';

if (!process.env.MERCHANT_DESK_TEST_HOME) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'md-home-'));
  process.env.MERCHANT_DESK_TEST_HOME = home;
}
