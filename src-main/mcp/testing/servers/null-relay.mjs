// The cheapest possible out-of-process stdio relay: bytes in, bytes out, no parsing. The proxy
// benchmark runs it as a ceiling, showing what the process hop alone costs on this machine.
import { spawn } from 'node:child_process';

const [command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.pipe(child.stdin);
child.stdout.pipe(process.stdout);
child.on('exit', (code) => process.exit(code ?? 0));
process.stdin.on('end', () => child.stdin.end());
