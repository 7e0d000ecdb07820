// The least a governing proxy must do per message, as a second floor beside null-relay.mjs
// (issue 11 item 5): read each line as JSON, record it as one HMAC-linked row in a SQLite WAL
// database (one transaction per chunk read, committed before the chunk is forwarded, as the
// proxy's DESIGN invariant 3 requires), then forward the original bytes. No policy, no DLP,
// no signatures: whatever the proxy does beyond this is its own cost.
// Usage: node audit-relay.mjs DB_PATH COMMAND [ARGS…]
import { spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';

const [dbPath, command, ...args] = process.argv.slice(2);
const db = new Database(dbPath);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec('CREATE TABLE IF NOT EXISTS entries (id INTEGER PRIMARY KEY, direction TEXT NOT NULL, data TEXT NOT NULL, hash TEXT NOT NULL)');
const insert = db.prepare('INSERT INTO entries (direction, data, hash) VALUES (?, ?, ?)');
const key = randomBytes(32);
let head = '0'.repeat(64);

const record = db.transaction((direction, lines) => {
  for (const line of lines) {
    const message = JSON.parse(line);
    const data = JSON.stringify({ id: message.id ?? null, method: message.method ?? null, params: message.params ?? null, result: message.result ?? null, error: message.error ?? null });
    head = createHmac('sha256', key).update(head).update(data).digest('hex');
    insert.run(direction, data, head);
  }
});

const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });

function relay(input, direction, output) {
  let rest = '';
  input.setEncoding('utf8');
  input.on('data', (chunk) => {
    const text = rest + chunk;
    const end = text.lastIndexOf('\n');
    if (end < 0) {
      rest = text;
      return;
    }
    rest = text.slice(end + 1);
    const whole = text.slice(0, end + 1);
    record(direction, whole.split('\n').filter((line) => line.trim() !== ''));
    output.write(whole);
  });
}

relay(process.stdin, 'to_server', child.stdin);
relay(child.stdout, 'to_client', process.stdout);
child.stdin.on('error', () => undefined);
child.on('exit', (code) => process.exit(code ?? 0));
process.stdin.on('end', () => child.stdin.end());
