// The least a governing proxy must do, as a second floor beside null-relay.mjs for the proxy's cost
// per call (docs/architecture.md §9): read every line as JSON in both directions (a proxy inspects
// responses too), record each message from the client as one HMAC-linked row in a SQLite WAL
// database (one transaction per chunk read, committed before the chunk is forwarded, as DESIGN
// invariant 3 requires of every decision; the proxy records a response only when it finds something
// in it), then forward the original bytes. No policy, no DLP, no signatures: whatever the proxy
// does beyond this is its own cost.
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

const record = db.transaction((direction, messages) => {
  for (const message of messages) {
    const data = JSON.stringify({ id: message.id ?? null, method: message.method ?? null, params: message.params ?? null });
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
    const messages = whole
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line));
    if (direction === 'to_server') record(direction, messages);
    output.write(whole);
  });
}

relay(process.stdin, 'to_server', child.stdin);
relay(child.stdout, 'to_client', process.stdout);
child.stdin.on('error', () => undefined);
child.on('exit', (code) => process.exit(code ?? 0));
process.stdin.on('end', () => child.stdin.end());
