import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { report } from '../../testing/bench.js';
import { SILAS_BIN } from '../../testing/cli.js';
import { fileURLToPath } from 'node:url';
import { childEnv, createTestHome, SERVERS, writePolicy } from '../testing/proxy-harness.js';

const NULL_RELAY = fileURLToPath(new URL('../testing/servers/null-relay.mjs', import.meta.url));
const AUDIT_RELAY = fileURLToPath(new URL('../testing/servers/audit-relay.mjs', import.meta.url));

/*
 * `silas proxy` against the same SDK client calling the same server directly (docs/architecture.md §9):
 * added latency per tools/call round trip (p50, p99), calls/s with 1 and 16 in flight beside a
 * byte-copying relay and an auditing relay (the least a governing proxy must do: parse each
 * message, append an HMAC-linked SQLite row per message before forwarding it), the added p50 of a write_file from 1 KB to 4 MB beside the JSON parse
 * floor, what the threat detectors add to a small call's p50 (the same policy with them off is
 * the floor), and the proxy's resident memory before and after many calls. The policy is realistic: an allow list,
 * an argument rule and a DLP pattern on both directions, every decision audited to SQLite.
 */

const LATENCY_CALLS = 3000;
const THROUGHPUT_MS = 3000;
const MEMORY_CALLS = Number(process.env.PROXY_BENCH_MEMORY_CALLS ?? 100_000);

async function connect(command: string, args: string[]): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({ command, args, env: childEnv(), stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

const call = (client: Client, i: number) => client.callTool({ name: 'echo', arguments: { message: `message ${i}` } });

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function throughput(client: Client, inFlight: number, durationMs: number): Promise<number> {
  let done = 0;
  const end = performance.now() + durationMs;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < end) {
        await call(client, done);
        done += 1;
      }
    }),
  );
  return (done * 1000) / (performance.now() - start);
}

async function callsN(client: Client, n: number, inFlight: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < n) await call(client, next++);
    }),
  );
}

const WRITE_SIZES: [string, number, number][] = [
  ['1kb', 1024, 300],
  ['16kb', 16 * 1024, 200],
  ['100kb', 100 * 1024, 100],
  ['1mb', 1024 * 1024, 30],
  // Just under the 4 MiB of argument text protected-path inspection reads (more is refused, not relayed).
  ['4mb', 4_000_000, 12],
];

/** Prose-like text with no secret in it, so DLP scans all of it and redacts nothing. */
function filler(bytes: number): string {
  const words = 'the quick brown fox jumps over a lazy dog while policy checks every line ';
  return words.repeat(Math.ceil(bytes / words.length)).slice(0, bytes);
}

/** Sorted latencies of `calls` sequential calls, after a tenth as many (at least 3) to warm up. */
async function latencies(client: Client, write: (client: Client, i: number) => Promise<unknown>, calls: number): Promise<number[]> {
  for (let i = 0; i < Math.max(3, calls / 10); i += 1) await write(client, i);
  const out: number[] = [];
  for (let i = 0; i < calls; i += 1) {
    const start = performance.now();
    await write(client, i);
    out.push(performance.now() - start);
  }
  return out.sort((a, b) => a - b);
}

/** Sorted latencies of two clients measured in `rounds` alternating blocks of `calls / rounds` calls each. */
async function pairedLatencies(a: Client, b: Client, write: (client: Client, i: number) => Promise<unknown>, calls: number, rounds: number): Promise<[number[], number[]]> {
  const block = Math.ceil(calls / rounds);
  const outA: number[] = [];
  const outB: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    // A round's order alternates too, so neither side always runs first after the other.
    const order: [Client, number[]][] = round % 2 === 0 ? [[a, outA], [b, outB]] : [[b, outB], [a, outA]];
    for (const [client, out] of order) out.push(...(await latencies(client, write, block)));
  }
  return [outA.sort((x, y) => x - y), outB.sort((x, y) => x - y)];
}

function parseFloorMs(line: string): number {
  const times: number[] = [];
  for (let i = 0; i < 15; i += 1) {
    const start = performance.now();
    JSON.parse(line);
    times.push(performance.now() - start);
  }
  return percentile(times.sort((a, b) => a - b), 50);
}

function rssKb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) : Number.NaN;
}

const dir = mkdtempSync(join(tmpdir(), 'silas-proxy-bench-'));
try {
  const home = createTestHome(join(dir, 'home'));
  const spec =
    '  allowed_tools: [echo, write_file]\n  tool_rules:\n    - tool: echo\n      allow_args:\n        message: "^message [0-9]+$"\n  dlp:\n    scan_requests: true\n    patterns:\n      - name: AWS Key\n        regex: "AKIA[0-9A-Z]{16}"\n';
  const policy = writePolicy(dir, spec);
  // The same policy with every threat detector off (docs/threat-detection.md): the floor for what they add.
  const withoutDetectors = writePolicy(dir, `${spec}  x-silas-threats:\n    tool_definitions: allow\n    results: 'off'\n    arguments: 'off'\n    chains: 'off'\n`, 'policy-without-detectors.yaml');
  const direct = await connect(process.execPath, [SERVERS.fileTools]);
  const proxied = await connect(process.execPath, [SILAS_BIN, 'proxy', '--no-sandbox', '--policy', policy, '--home', home.home, '--name', 'bench', '--', process.execPath, SERVERS.fileTools]);
  // The ceiling: a relay that does nothing but copy bytes, so the cost of the process hop alone is visible.
  const relay = await connect(process.execPath, [NULL_RELAY, process.execPath, SERVERS.fileTools]);
  const auditRelay = await connect(process.execPath, [AUDIT_RELAY, join(dir, 'audit-relay.db'), process.execPath, SERVERS.fileTools]);

  const d = await latencies(direct.client, call, LATENCY_CALLS);
  const p = await latencies(proxied.client, call, LATENCY_CALLS);
  for (const q of [50, 99]) {
    report(`mcp.proxy.latency_p${q}`, 'ms', percentile(p, q), { direct_ms: Number(percentile(d, q).toFixed(4)), added_ms: Number((percentile(p, q) - percentile(d, q)).toFixed(4)), calls: LATENCY_CALLS });
  }
  const quiet = await connect(process.execPath, [SILAS_BIN, 'proxy', '--no-sandbox', '--policy', withoutDetectors, '--home', home.home, '--name', 'bench-quiet', '--', process.execPath, SERVERS.fileTools]);
  // Warmed as much as the first proxy was by the latency run above; then alternating blocks, so
  // drift of the machine and the ledger's growth fall on both sides alike.
  await latencies(quiet.client, call, LATENCY_CALLS);
  const [withDetectors, withoutThem] = await pairedLatencies(proxied.client, quiet.client, call, LATENCY_CALLS, 10);
  await quiet.client.close();
  report('mcp.proxy.detectors_added_p50', 'ms', percentile(withDetectors, 50) - percentile(withoutThem, 50), {
    with_detectors_ms: Number(percentile(withDetectors, 50).toFixed(4)),
    without_detectors_ms: Number(percentile(withoutThem, 50).toFixed(4)),
    target_ms: 0.1,
    calls: LATENCY_CALLS,
    rounds: 10,
  });
  for (const inFlight of [1, 16]) {
    const directRate = await throughput(direct.client, inFlight, THROUGHPUT_MS);
    const proxyRate = await throughput(proxied.client, inFlight, THROUGHPUT_MS);
    const relayRate = await throughput(relay.client, inFlight, THROUGHPUT_MS);
    const auditRate = await throughput(auditRelay.client, inFlight, THROUGHPUT_MS);
    report(`mcp.proxy.calls_per_sec_${inFlight}_in_flight`, 'calls/s', proxyRate, {
      direct: Math.round(directRate),
      ratio: Number((proxyRate / directRate).toFixed(3)),
      ratio_to_null_relay: Number((proxyRate / relayRate).toFixed(3)),
      ratio_to_audit_relay: Number((proxyRate / auditRate).toFixed(3)),
      target_ratio_to_null_relay: 0.8,
    });
    report(`mcp.proxy.null_relay_calls_per_sec_${inFlight}_in_flight`, 'calls/s', relayRate, { direct: Math.round(directRate), ratio: Number((relayRate / directRate).toFixed(3)) });
    report(`mcp.proxy.audit_relay_calls_per_sec_${inFlight}_in_flight`, 'calls/s', auditRate, { direct: Math.round(directRate), ratio: Number((auditRate / directRate).toFixed(3)), ratio_to_null_relay: Number((auditRate / relayRate).toFixed(3)) });
  }
  await relay.client.close();
  await auditRelay.client.close();

  const pid = proxied.transport.pid!;
  await callsN(proxied.client, 5000, 16);
  const warm = rssKb(pid);
  const started = performance.now();
  await callsN(proxied.client, MEMORY_CALLS, 16);
  const seconds = (performance.now() - started) / 1000;
  const after = rssKb(pid);
  report('mcp.proxy.rss_after_calls', 'MB', after / 1024, { calls: MEMORY_CALLS, rss_after_warmup_mb: Number((warm / 1024).toFixed(1)), growth_mb: Number(((after - warm) / 1024).toFixed(1)), seconds: Number(seconds.toFixed(1)) });

  // Large arguments, whose cost must grow no faster than the bytes (docs/architecture.md §9): the added p50 of one write_file beside the floor any proxy
  // that reads the call must pay, one JSON.parse of the request line in this process. Measured
  // after the memory figure, which multi-megabyte lines would otherwise inflate.
  const files = join(dir, 'files');
  mkdirSync(files);
  for (const [label, bytes, calls] of WRITE_SIZES) {
    const content = filler(bytes);
    const write = (client: Client, i: number) => client.callTool({ name: 'write_file', arguments: { path: join(files, `f${i % 4}`), content } });
    const line = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'write_file', arguments: { path: join(files, 'f0'), content } } });
    const dt = await latencies(direct.client, write, calls);
    const pt = await latencies(proxied.client, write, calls);
    const parse = parseFloorMs(line);
    report(`mcp.proxy.write_file_${label}_added_p50`, 'ms', percentile(pt, 50) - percentile(dt, 50), { direct_p50_ms: Number(percentile(dt, 50).toFixed(4)), proxied_p50_ms: Number(percentile(pt, 50).toFixed(4)), json_parse_floor_ms: Number(parse.toFixed(4)), calls });
  }

  await direct.client.close();
  await proxied.client.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
