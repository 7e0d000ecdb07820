// The Alignment page's benchmark: 100,000 traces rendered in under 1 s (docs/alignment.md "The
// Alignment page"). A real headless runtime on a fresh temporary home serves the cockpit (built
// from the current sources into a temporary directory) to Chromium; the page is opened on the
// Alignment route and an agent is shown. Measured in the page, from the click on "Show AGENT" to
// the frame after both uPlot charts report they drew every trace (`data-points`): the
// alignment.series call, the runtime reading its rows, the transfer, parsing and checking the
// answer, the store, React, the chart data and uPlot. The floor, measured in the same page in the
// same run: a bare WebSocket fetching the same alignment.series and JSON.parse-ing it.
//
// This benchmarks the page, not the recorder: the traces are inserted directly into the
// aap_traces table through AlignmentRepository.insertTrace (what the Alignment page reads), not
// recorded from 100,000 real decisions of the chain.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { AlignmentRepository } from '../store/repositories/alignment.js';
import { report } from '../testing/bench.js';
import { callOverWebSocket, launchChromium, rerunUnderKeyring, startBenchRuntime, type BenchRuntime } from '../testing/cockpit-bench.js';
import { runSilasProcess } from '../testing/cli.js';

const SIZES = [10_000, 100_000] as const;
/** Measured runs per size, after one warm-up (which loads uPlot's chunk). */
const RUNS = 5;
const TIMEOUT_MS = 60_000;
const T0 = Date.UTC(2026, 0, 1);
const VALUES = ['transparency', 'privacy', 'honesty', 'harm_prevention'];

const status = rerunUnderKeyring(fileURLToPath(import.meta.url));
if (status !== null) process.exit(status);

const agentOf = (count: number) => `mcp:bench-${count}`;
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;

/** `count` traces for one agent: a baseline of 50, a drift towards the end with a few alerts, one decision in ten escalated. */
function seed(database: string): void {
  const db = new Database(database);
  try {
    db.pragma('busy_timeout = 5000');
    const repo = new AlignmentRepository(db);
    db.transaction(() => {
      for (const count of SIZES) {
        const agentId = agentOf(count);
        for (let i = 0; i < count; i += 1) {
          const drifting = i > count * 0.8;
          repo.insertTrace({
            agentId,
            traceId: `tr-${count}-${i.toString(16).padStart(8, '0')}`,
            cardId: `ac-bench-${count}`,
            ts: new Date(T0 + i * 1000).toISOString(),
            sourceIndex: i,
            auditIndex: i,
            actionName: i % 7 === 0 ? 'write_file' : 'read_file',
            actionType: 'bounded',
            escalated: i % 10 === 0,
            verified: i % 500 !== 0,
            violations: i % 500 === 0 ? ['UNBOUNDED_ACTION'] : [],
            similarity: 0.4 + 0.2 * Math.sin(i / 50),
            driftSimilarity: i < 50 ? null : drifting ? 0.25 + 0.1 * Math.sin(i / 20) : 0.85 + 0.1 * Math.sin(i / 30),
            driftAlert: drifting && i % 2_000 === 0,
            values: [VALUES[i % VALUES.length]!],
            // Seeded without the keyring: the page's series reads rows without checking seals.
            seal: null,
          });
        }
        // The counts the recorder keeps with each page, here for the whole seeded history at once
        // (unsealed, like the rows: the agents list counts them again, once per call).
        repo.setCounts({ agentId, traces: count, violations: Math.ceil(count / 500), escalations: Math.ceil(count / 10), alerts: 0, lastTs: new Date(T0 + (count - 1) * 1000).toISOString() }, '');
      }
    }).immediate();
  } finally {
    db.close();
  }
}

/** In the page: click "Show AGENT" and wait until both charts drew `count` points, then one frame. */
const showAndWait = (agentId: string, count: number) => `(async () => {
  const button = [...document.querySelectorAll('button')].find((b) => b.getAttribute('aria-label') === ${JSON.stringify(`Show ${agentId}`)});
  if (!button) throw new Error('no button "Show ${agentId}"');
  const drawn = () => {
    const charts = document.querySelectorAll('[role="img"][data-points]');
    return charts.length >= 2 && [...charts].every((c) => c.getAttribute('data-points') === '${count}');
  };
  const start = performance.now();
  button.click();
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the charts did not draw ${count} points within ${TIMEOUT_MS} ms')), ${TIMEOUT_MS});
    const observer = new MutationObserver(() => {
      if (!drawn()) return;
      observer.disconnect();
      clearTimeout(timer);
      resolve();
    });
    observer.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-points'] });
  });
  await new Promise((resolve) => requestAnimationFrame(resolve));
  return performance.now() - start;
})()`;

/** In the page: the floor, the same alignment.series over a bare WebSocket, JSON-parsed. */
const fetchFloor = (agentId: string) => callOverWebSocket('alignment.series', { agentId, afterSeq: 0, limit: 100000 }, '(value) => ({ points: value.seq.length })');

async function openAlignment(page: Page): Promise<void> {
  await page.reload();
  await page.getByRole('status', { name: 'Connection', exact: true }).getByText('Connected').waitFor({ timeout: TIMEOUT_MS });
  await page.getByRole('heading', { level: 1, name: 'Alignment' }).waitFor({ timeout: TIMEOUT_MS });
  await page.getByRole('button', { name: `Show ${agentOf(SIZES[0])}`, exact: true }).waitFor({ timeout: TIMEOUT_MS });
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'silas-bench-alignment-'));
  const home = join(root, 'home');
  const problems: string[] = [];
  let runtime: BenchRuntime | null = null;
  const browser = await launchChromium();
  try {
    const init = runSilasProcess(['init', '--home', home]);
    if (init.code !== 0) throw new Error(`silas init failed: ${init.err}`);
    seed(join(home, 'silas.db'));
    runtime = await startBenchRuntime(home, join(root, 'cockpit'));
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.addInitScript({ content: "document.addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + e.violatedDirective));" });
    page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(runtime.cockpitUrl);
    await page.evaluate("location.hash = '#/alignment'");

    for (const count of SIZES) {
      const agentId = agentOf(count);
      const times: number[] = [];
      const floors: number[] = [];
      for (let run = 0; run <= RUNS; run += 1) {
        await openAlignment(page);
        const floor = (await page.evaluate(fetchFloor(agentId))) as { took: number; points: number };
        if (floor.points !== count) throw new Error(`alignment.series returned ${floor.points} traces for ${agentId}, not ${count}`);
        const took = (await page.evaluate(showAndWait(agentId, count))) as number;
        if (run === 0) continue;
        times.push(took);
        floors.push(floor.took);
      }
      report(`alignment.page_${count}_traces.p50`, 'ms', percentile(times, 0.5), {
        traces: count,
        runs: RUNS,
        max_ms: Number(Math.max(...times).toFixed(1)),
        floor_ws_fetch_json_parse_p50_ms: Number(percentile(floors, 0.5).toFixed(1)),
        ...(count === 100_000 ? { target_ms: 1000 } : {}),
      });
    }
    if (problems.length > 0) throw new Error(`the page reported problems:\n${problems.join('\n')}`);
  } finally {
    await browser.close();
    await runtime?.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
