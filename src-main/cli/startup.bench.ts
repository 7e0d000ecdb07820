import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childEnv, createTestHome, SERVERS, writePolicy } from '../mcp/testing/proxy-harness.js';
import { report } from '../testing/bench.js';
import { buildCopy, copyCheckout, extractCommit } from './testing/startup.js';

/*
 * Start-up of the `silas` command (docs/architecture.md §6): every MCP client spawns one `silas proxy`
 * per server at launch, and every CLI call pays the start. Each figure is the median wall time of
 * RUNS process starts, beside its floor measured in the same run (docs/architecture.md §6): a bare
 * `node -e 0` for the CLI, the same MCP server answering `initialize` directly for the proxy.
 * "built" is the JavaScript from scripts/build-cli.js; "tsx" is the TypeScript sources compiled at
 * start (SILAS_FROM_SOURCE=1), which is how every start ran before the build existed. Both run a
 * copy of the working tree built for this run, so edits made meanwhile cannot turn "built" into
 * tsx. The variants alternate within each round so that load from elsewhere hits them alike.
 * STARTUP_BENCH_BEFORE=<git ref> adds that commit as it ran (extracted with `git archive`): the
 * figure before a change, in the same run.
 */

const RUNS = Number(process.env.STARTUP_BENCH_RUNS ?? 15);
const BEFORE_REF = process.env.STARTUP_BENCH_BEFORE;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Milliseconds from spawn to exit; throws unless the process exits 0. */
function timeExit(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`node ${args.join(' ')} exited ${code}: ${err}`))));
  });
}

const INITIALIZE = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'startup-bench', version: '1.0.0' } } })}\n`;

/** Milliseconds from spawn to the first stdout line answering `initialize` (id 1); then stops it. */
function timeInitialize(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let answered: number | undefined;
    child.stdin.write(INITIALIZE);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (answered !== undefined || !out.includes('\n')) return;
      const reply = JSON.parse(out.slice(0, out.indexOf('\n'))) as { id?: number; result?: unknown };
      if (reply.id !== 1 || reply.result === undefined) return reject(new Error(`not an initialize result: ${out}`));
      answered = performance.now() - started;
      child.stdin.end();
      child.kill('SIGTERM');
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    // Resolve only once the process is gone, so the next run never overlaps this one.
    child.on('close', (code) => (answered !== undefined ? resolve(answered) : reject(new Error(`exited ${code} before answering initialize: ${err}`))));
  });
}

function beforeFigures(ms: number | undefined, floor: number): Record<string, unknown> {
  return ms === undefined ? {} : { before_ref: BEFORE_REF, before_ms: Number(ms.toFixed(1)), before_ratio_to_node: Number((ms / floor).toFixed(2)) };
}

type Variant = { name: string; run: () => Promise<number> };

let beforeHomeDir: string | undefined;
/** A home the earlier version made itself: it refuses a database migrated by a newer version. */
async function beforeHome(bin: string): Promise<string> {
  if (!beforeHomeDir) {
    beforeHomeDir = join(dir, 'before-home');
    await timeExit([bin, 'init', '--home', beforeHomeDir], env);
  }
  return beforeHomeDir;
}

async function measure(variants: Variant[]): Promise<Map<string, number>> {
  const samples = new Map<string, number[]>(variants.map((v) => [v.name, []]));
  for (const v of variants) await v.run(); // warm the page cache; not counted
  for (let round = 0; round < RUNS; round += 1) for (const v of variants) samples.get(v.name)!.push(await v.run());
  return new Map([...samples].map(([name, values]) => [name, median(values)]));
}

const env = childEnv();
const fromSource = { ...env, SILAS_FROM_SOURCE: '1' };
const dir = mkdtempSync(join(tmpdir(), 'silas-startup-bench-'));
try {
  const SILAS_BIN = copyCheckout(join(dir, 'after'));
  buildCopy(join(dir, 'after'));
  const beforeBin = BEFORE_REF ? extractCommit(join(dir, 'before'), BEFORE_REF) : undefined;
  const before = (args: string[]) => (beforeBin ? [{ name: 'before', run: () => timeExit([beforeBin, ...args], env) }] : []);
  const cli = await measure([
    { name: 'node', run: () => timeExit(['-e', '0'], env) },
    { name: 'version_built', run: () => timeExit([SILAS_BIN, '--version'], env) },
    { name: 'version_tsx', run: () => timeExit([SILAS_BIN, '--version'], fromSource) },
    { name: 'help_built', run: () => timeExit([SILAS_BIN, '--help'], env) },
    { name: 'help_tsx', run: () => timeExit([SILAS_BIN, '--help'], fromSource) },
    ...before(['--version']).map((v) => ({ ...v, name: 'version_before' })),
    ...before(['--help']).map((v) => ({ ...v, name: 'help_before' })),
  ]);
  const floor = cli.get('node')!;
  report('cli.start.node_floor', 'ms', floor, { runs: RUNS });
  for (const what of ['version', 'help']) {
    const built = cli.get(`${what}_built`)!;
    const tsx = cli.get(`${what}_tsx`)!;
    const old = cli.get(`${what}_before`);
    report(`cli.start.${what}`, 'ms', built, { node_ms: Number(floor.toFixed(1)), ratio_to_node: Number((built / floor).toFixed(2)), tsx_ms: Number(tsx.toFixed(1)), tsx_ratio_to_node: Number((tsx / floor).toFixed(2)), ...beforeFigures(old, floor), runs: RUNS });
  }

  const home = createTestHome(join(dir, 'home'));
  const policy = writePolicy(dir, '  allowed_tools: [echo]\n');
  // Unsandboxed, as the versions before the sandbox ran; the sandbox's start cost is benched in mcp/sandbox/.
  const proxyArgs = [SILAS_BIN, 'proxy', '--no-sandbox', '--policy', policy, '--home', home.home, '--name', 'startup', '--', process.execPath, SERVERS.fileTools];
  const proxy = await measure([
    { name: 'server', run: () => timeInitialize([SERVERS.fileTools], env) },
    { name: 'proxy_built', run: () => timeInitialize(proxyArgs, env) },
    { name: 'proxy_tsx', run: () => timeInitialize(proxyArgs, fromSource) },
    ...(beforeBin ? [{ name: 'proxy_before', run: async () => timeInitialize([beforeBin, 'proxy', ...proxyArgs.slice(3, 5), '--home', await beforeHome(beforeBin), ...proxyArgs.slice(7)], env) }] : []),
  ]);
  const server = proxy.get('server')!;
  const built = proxy.get('proxy_built')!;
  const tsx = proxy.get('proxy_tsx')!;
  report('cli.start.proxy_initialize', 'ms', built, { server_direct_ms: Number(server.toFixed(1)), added_ms: Number((built - server).toFixed(1)), node_ms: Number(floor.toFixed(1)), ratio_to_node: Number((built / floor).toFixed(2)), tsx_ms: Number(tsx.toFixed(1)), tsx_added_ms: Number((tsx - server).toFixed(1)), ...beforeFigures(proxy.get('proxy_before'), floor), runs: RUNS });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
