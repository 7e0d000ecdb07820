import RE2 from 're2';
import { medianUs, opsPerSecond, report } from '../../testing/bench.js';
import { DlpEngine } from './engine.js';
import { COMMON_PATTERNS, dlpConfig } from './testing/dlp.js';

/*
 * DLP throughput on a ~1 MB MCP tools/call result (text content items plus a structuredContent
 * table) with 12 realistic patterns and a handful of secrets. Compares the engine (one RE2.Set
 * pass per batch, then only the matching patterns) with a naive walk that runs every pattern
 * over every string, in the same process (DESIGN §6: compare ratios within one run).
 */

const PATTERNS = COMMON_PATTERNS;


/** Deterministic pseudo-random words (no secrets by construction). */
function makeRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const WORDS = 'the build step compiles module output cache worker request handler returned status config value token path file index table query result error retry timeout session user agent policy tool server client stream buffer'.split(' ');

function buildResponse(targetBytes: number): unknown {
  const rand = makeRandom(42);
  const word = (): string => WORDS[Math.floor(rand() * WORDS.length)]!;
  const sentence = (n: number): string => Array.from({ length: n }, word).join(' ');
  const hex = (n: number): string => Array.from({ length: n }, () => Math.floor(rand() * 16).toString(16)).join('');

  const logLine = (i: number): string =>
    `2026-01-24T10:${String(i % 60).padStart(2, '0')}:45.123Z INFO [${word()}] ${sentence(10)} commit=${hex(40)} path=/srv/app/${word()}/${word()}.ts line=${i}`;

  const secrets = [
    'deploy key AKIAIOSFODNN7EXAMPLE was rotated',
    'contact alice.smith@example.com for access',
    'token ghp_abcdefghijklmnopqrstuvwxyz0123456789 leaked',
    'customer SSN 123-45-6789 on file',
    'bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
  ];

  const content: unknown[] = [];
  const itemCount = 10;
  const textBudget = targetBytes / 2 / itemCount;
  for (let item = 0; item < itemCount; item += 1) {
    const lines: string[] = [];
    let size = 0;
    for (let i = 0; size < textBudget; i += 1) {
      const line = logLine(i);
      lines.push(line);
      size += line.length + 1;
    }
    if (item % 3 === 0) lines.splice(lines.length >> 1, 0, secrets[item / 3]!);
    content.push({ type: 'text', text: lines.join('\n') });
  }

  const rows: unknown[] = [];
  let rowBytes = 0;
  for (let i = 0; rowBytes < targetBytes / 2; i += 1) {
    const row = {
      id: i,
      name: `${word()}-${word()}-${i}`,
      path: `/srv/data/${word()}/${word()}/${i}.json`,
      status: rand() < 0.9 ? 'ok' : 'failed',
      updated_at: `2026-01-${String((i % 28) + 1).padStart(2, '0')}T08:00:00Z`,
      notes: sentence(8),
      tags: [word(), word(), word()],
      metrics: { cpu: Math.round(rand() * 1000) / 10, mem: Math.floor(rand() * 1e6), ok: rand() < 0.5 },
      digest: `sha256:${hex(64)}`,
    };
    if (i === 1000) row.notes = secrets[4]!;
    rows.push(row);
    rowBytes += JSON.stringify(row).length;
  }
  return { content, structuredContent: { rows, total: rows.length }, isError: false };
}

/**
 * The baseline: every pattern over every string, one native test() each (then a replace() where
 * it matched; test-then-replace is about twice as fast as replace() alone, so the baseline is not
 * made artificially slow).
 */
function naive(value: unknown, patterns: { name: string; test: RE2; global: RE2 }[]): unknown {
  if (typeof value === 'string') {
    let out = value;
    for (const p of patterns) if (p.test.test(out)) out = p.global.replace(out, () => `[REDACTED:${p.name}]`);
    return out;
  }
  if (Array.isArray(value)) return value.map((v) => naive(v, patterns));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = naive(v, patterns);
    return out;
  }
  return value;
}

const response = buildResponse(1024 * 1024);
const megabytes = Buffer.byteLength(JSON.stringify(response)) / (1024 * 1024);
// A scan limit above the payload, so the whole megabyte is measured.
const cfg = dlpConfig(PATTERNS, { maxScanSize: 16 * 1024 * 1024 });
const engine = new DlpEngine(cfg);
const check = engine.redactResponse(response);
const naivePatterns = cfg.patterns.map((p) => ({ name: p.name, test: new RE2(p.regex.source, 'u'), global: new RE2(p.regex.source, 'gu') }));
if (JSON.stringify(naive(response, naivePatterns)) !== JSON.stringify(check.value)) throw new Error('bench: engine and naive outputs differ');
const markers = check.events.reduce((n, e) => n + e.count, 0);

const setRun = opsPerSecond(() => engine.redactResponse(response), 3000);
const naiveRun = opsPerSecond(() => naive(response, naivePatterns), 3000);
const setMBs = setRun.opsPerSec * megabytes;
const naiveMBs = naiveRun.opsPerSec * megabytes;
const extra = { size_mb: Number(megabytes.toFixed(3)), patterns: PATTERNS.length, markers };
report('dlp.scan.re2_set', 'MB/s', setMBs, extra);
report('dlp.scan.per_pattern', 'MB/s', naiveMBs, extra);
report('dlp.scan.re2_set_vs_per_pattern', 'ratio', setMBs / naiveMBs, extra);

// The common case: nothing to redact (the same shape, secrets removed).
const clean = JSON.parse(JSON.stringify(response).replace(/AKIA|alice\.smith@|ghp_|123-45-6789|eyJ/g, 'zz')) as unknown;
if (engine.redactResponse(clean).redacted) throw new Error('bench: clean response redacted');
report('dlp.scan.re2_set_clean', 'MB/s', opsPerSecond(() => engine.redactResponse(clean), 2000).opsPerSec * megabytes, { size_mb: extra.size_mb });

// detect_encoding costs: the same response with encoded-run detection on.
const encodingEngine = new DlpEngine({ ...cfg, detectEncoding: true });
report('dlp.scan.re2_set_detect_encoding', 'MB/s', opsPerSecond(() => encodingEngine.redactResponse(response), 2000).opsPerSec * megabytes, { size_mb: extra.size_mb });

// Literal-start patterns (patterns.ts LITERAL_START): up to four patterns that each begin with
// literal bytes are tested one by one over a long text, where RE2 can search for those bytes,
// instead of through the set's DFA. The same patterns written so that none starts with a literal
// (`(?:AKIA)…` means the same) take the set: the ratio is what the shortcut buys. Both beside the
// floor any proxy pays for the same message: one JSON parse + stringify.
const LITERAL: [string, string][] = [
  ['AWS Key', 'AKIA[0-9A-Z]{16}'],
  ['GitHub Token', 'ghp_[A-Za-z0-9]{36}'],
  ['Private Key', '-----BEGIN [A-Z ]*PRIVATE KEY-----'],
  ['Slack Token', 'xoxb-[A-Za-z0-9-]{10,48}'],
];
const literalEngine = new DlpEngine(dlpConfig(LITERAL, { maxScanSize: 16 * 1024 * 1024, scanRequests: true }));
const setEngine = new DlpEngine(dlpConfig(LITERAL.map(([name, regex]) => [name, `(?:${regex.slice(0, 4)})${regex.slice(4)}`]), { maxScanSize: 16 * 1024 * 1024, scanRequests: true }));
for (const [label, bytes] of [['100kb', 100_000], ['1mb', 1_000_000], ['4mb', 4_000_000]] as const) {
  const rand = makeRandom(7);
  const prose: string[] = [];
  for (let size = 0; size < bytes; ) {
    const line = Array.from({ length: 12 }, () => WORDS[Math.floor(rand() * WORDS.length)]!).join(' ');
    prose.push(line);
    size += line.length + 1;
  }
  const args = { path: '/srv/app/notes.md', content: prose.join('\n') };
  const message = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'write_file', arguments: args } });
  if (literalEngine.scanRequest(args).events.length !== 0 || setEngine.scanRequest(args).events.length !== 0) throw new Error('bench: clean prose matched');
  const runs = bytes >= 1_000_000 ? 9 : 41;
  const floorUs = medianUs(() => JSON.stringify(JSON.parse(message)), runs);
  const literalUs = medianUs(() => literalEngine.scanRequest(args), runs);
  const setUs = medianUs(() => setEngine.scanRequest(args), runs);
  report(`dlp.request.literal_patterns_${label}`, 'us', literalUs, { chars: message.length, floor_json_roundtrip_us: floorUs, ratio_to_floor: literalUs / floorUs, set_us: setUs, set_ratio_to_floor: setUs / floorUs, literal_speedup: setUs / literalUs });
}

// x-silas-normalize: the response scan of ordinary text (prose, log lines with commit hashes,
// a few accented words) with normalisation on and off, each beside the floor: one plain RE2.Set
// test of the same text with the same patterns.
const normalizeOn = new DlpEngine(dlpConfig(PATTERNS, { maxScanSize: 16 * 1024 * 1024 }));
const normalizeOff = new DlpEngine(dlpConfig(PATTERNS, { maxScanSize: 16 * 1024 * 1024, normalize: false }));
const floorSet = new RE2.Set(PATTERNS.map(([, regex]) => regex), 'u');
for (const [label, bytes] of [['1kb', 1024], ['64kb', 64 * 1024], ['1mb', 1024 * 1024], ['4mb', 4 * 1024 * 1024]] as const) {
  const rand = makeRandom(11);
  const word = (): string => WORDS[Math.floor(rand() * WORDS.length)]!;
  const lines: string[] = [];
  for (let size = 0, i = 0; size < bytes; i += 1) {
    const line =
      i % 10 === 9
        ? `2026-01-24T10:00:00Z INFO commit=${Array.from({ length: 40 }, () => Math.floor(rand() * 16).toString(16)).join('')} ${word()} ${word()}`
        : i % 25 === 24
          ? `${word()} café déjà vu ${word()} naïve ${word()}`
          : Array.from({ length: 12 }, word).join(' ');
    lines.push(line);
    size += Buffer.byteLength(line) + 1;
  }
  const text = lines.join('\n').slice(0, bytes);
  const result = { content: [{ type: 'text', text }] };
  if (normalizeOn.redactResponse(result).redacted || normalizeOff.redactResponse(result).redacted) throw new Error('bench: ordinary text redacted');
  const mb = Buffer.byteLength(text) / (1024 * 1024);
  const runs = bytes >= 1024 * 1024 ? 9 : bytes >= 64 * 1024 ? 101 : 2001;
  const floorMBs = mb / (medianUs(() => floorSet.test(text), runs) / 1e6);
  const onMBs = mb / (medianUs(() => normalizeOn.redactResponse(result), runs) / 1e6);
  const offMBs = mb / (medianUs(() => normalizeOff.redactResponse(result), runs) / 1e6);
  report(`dlp.response.normalize_on_${label}`, 'MB/s', onMBs, { floor: Number(floorMBs.toPrecision(6)), ratio_to_floor: onMBs / floorMBs });
  report(`dlp.response.normalize_off_${label}`, 'MB/s', offMBs, { floor: Number(floorMBs.toPrecision(6)), ratio_to_floor: offMBs / floorMBs });
}
