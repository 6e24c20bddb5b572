// Child of openFromProcesses (second-process.ts): opens the database when told to go.
import { openDatabase } from '../../main/store/sqlite/connection.js';

const file = process.argv[2]!;
process.stdout.write('ready\n');
process.stdin.once('data', () => {
  try {
    const db = openDatabase(file);
    const version = db.pragma('user_version', { simple: true }) as number;
    db.close();
    process.stdout.write(`ok ${version}\n`);
    process.exit(0);
  } catch (e) {
    process.stdout.write(`error ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  }
});
