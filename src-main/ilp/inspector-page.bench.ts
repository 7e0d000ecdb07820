// The ILP inspector's first render in real Chromium (docs/ilp.md "Figures"): the cockpit loaded on
// its ILP page until the frame after the Compositions list shows its first page, with 1,000, 10,000
// and 100,000 compositions stored. Measured in the page from the start of the navigation: the
// cockpit's scripts, the WebSocket and its credential, `ilp.list` (the runtime reading the newest
// page and checking each row's seal), the store and React; and, apart, the part that can depend on
// what is stored: from the cockpit's `ilp.list` to that frame. The floors come from the same run,
// measured alternately with each figure so both see the same machine: the same page's first render
// (and its `ilp.list` to frame) on a runtime whose home stores no composition, and `ilp.list` for
// the same page over a bare WebSocket from the page, JSON-parsed.
//
// The compositions are written through IlpCompositionRepository with the home's own ledger key,
// before the runtime starts (the fastest honest way: no model is called). Each has three hops with
// their raw messages, the size of a real one. The home grows between sizes; a size whose seeding
// would take more than a minute (projected from the sizes before it) is reported as skipped.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from '@playwright/test';
import { openHome } from '../app/home.js';
import { OsKeyring } from '../keys/secret-store.js';
import { IlpCompositionRepository, type NewComposition } from '../store/repositories/ilp-compositions.js';
import { inImmediateTransaction } from '../store/transaction.js';
import { report } from '../testing/bench.js';
import { callOverWebSocket, launchChromium, rerunUnderKeyring, startBenchRuntime, type BenchRuntime } from '../testing/cockpit-bench.js';
import { runSilasProcess } from '../testing/cli.js';

const SIZES = [1_000, 10_000, 100_000] as const;
/** What the page lists at first (ILP_PAGE in src-renderer/store/ilp-state.ts). */
const PAGE = 50;
/** Measured runs per size, after one warm-up. */
const RUNS = 9;
const SEED_BUDGET_MS = 60_000;
const TIMEOUT_MS = 60_000;
const T0 = Date.UTC(2026, 0, 1);

const status = rerunUnderKeyring(fileURLToPath(import.meta.url));
if (status !== null) process.exit(status);

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const ms = (value: number) => Number(value.toFixed(1));

function hop(i: number, n: number, depth: number): NewComposition['detail']['hop_list'][number] {
  return {
    id: `hop-${i}-${n}`,
    parent: depth === 0 ? null : `hop-${i}-0`,
    agent: depth === 0 ? 'meta-agent' : n === 1 ? 'finance-agent' : 'systems-agent',
    kind: depth === 0 ? 'meta' : 'specialist',
    domain: depth === 0 ? 'meta' : n === 1 ? 'finance' : 'systems',
    method: 'THINK',
    path: '/insight',
    depth,
    cost_usd: 0.001,
    confidence: 0.86,
    status: 200,
    constitutional_status: 'PASSED',
    principle: null,
    severity: null,
    slices: depth === 0 ? [] : ['budgeting-basics'],
    request_text: `THINK /insight ILP/1.0\n\n${JSON.stringify({ query: `How can I stabilize my spending, case ${i}?` }).padEnd(300, ' ')}`,
    response_text: `ILP/1.0 200 OK\n\n${JSON.stringify({ answer: 'Keep a buffer of one month of spending.' }).padEnd(1200, ' ')}`,
    duration_ms: 3,
  };
}

function composition(i: number): NewComposition {
  return {
    id: `ilp-bench-${i.toString(16).padStart(8, '0')}`,
    query: `How can I stabilize my spending, case ${i}?`,
    status: 200,
    constitutional_status: 'PASSED',
    started_at: new Date(T0 + i * 1000).toISOString(),
    cost_usd: 0.003,
    hops: 3,
    max_depth: 1,
    replay_of: null,
    answer: 'Keep a buffer of one month of spending.',
    detail: { hop_list: [hop(i, 0, 0), hop(i, 1, 1), hop(i, 2, 1)], influencers: [{ concept: 'homeostasis', slice: 'budgeting-basics', weight: 0.8, reasoning: 'a set point and a correction' }], decision_path: ['finance', 'systems'] },
  };
}

/** Compositions `from` to `to` written into the stopped runtime's home, sealed as the runtime seals them (app/compose-ilp.ts); returns the time taken. */
function seed(home: string, from: number, to: number): number {
  const start = performance.now();
  const ledger = openHome(home, { create: false, keys: 'signer', secretStore: new OsKeyring() });
  try {
    const repo = new IlpCompositionRepository(ledger.db, {
      seal: (id, fields) => ledger.seals.seal('ledger', 'ilp-composition', id, fields),
      check: (id, fields, seal) => ledger.seals.check('ledger', 'ilp-composition', id, fields, seal).ok,
    });
    // Batches keep the write-ahead log from holding the whole seeding at once.
    for (let batch = from; batch < to; batch += 5_000) {
      inImmediateTransaction(ledger.db, () => {
        for (let i = batch; i < Math.min(to, batch + 5_000); i += 1) repo.insert(composition(i));
      });
    }
  } finally {
    ledger.close();
  }
  return performance.now() - start;
}

/**
 * Installed before the cockpit's scripts on every load: the time, from the start of the navigation,
 * of the frame after the Compositions list first shows rows or the page says none is stored; and
 * when the cockpit sent its first `ilp.list`, so the part of the render that depends on what is
 * stored (the call, the runtime's read and seal checks, the transfer, the store, React, the frame)
 * can be told from loading the cockpit itself.
 */
const WATCH_FIRST_RENDER = `window.__ilpFirstRender = new Promise((resolve) => {
  let listSent = null;
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    if (listSent === null && typeof data === 'string' && data.includes('"name":"ilp.list"')) listSent = performance.now();
    return send.call(this, data);
  };
  const rendered = () => (document.querySelector('ol[aria-label="Compositions"]')?.children.length ?? 0) > 0 || document.querySelector('.ilp-empty') !== null;
  const observer = new MutationObserver(() => {
    if (!rendered()) return;
    observer.disconnect();
    requestAnimationFrame(() => resolve({ frame: performance.now(), listSent }));
  });
  observer.observe(document, { subtree: true, childList: true });
});`;

/** In the page: the floor, `ilp.list` for the first page over a bare WebSocket, JSON-parsed. */
const LIST_OVER_WEBSOCKET = callOverWebSocket('ilp.list', { limit: PAGE }, '(value) => ({ rows: value.compositions.length, total: value.total })');

/** A page on `runtime`'s cockpit, on the ILP route; the credential is kept by the cockpit for the reloads. */
async function openIlp(browser: Browser, runtime: BenchRuntime, problems: string[]): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await page.addInitScript({ content: "document.addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + e.violatedDirective));" });
  await page.addInitScript({ content: WATCH_FIRST_RENDER });
  page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(runtime.cockpitUrl);
  await page.getByRole('status', { name: 'Connection', exact: true }).getByText('Connected').waitFor({ timeout: TIMEOUT_MS });
  await page.evaluate("location.hash = '#/ilp'");
  await page.getByRole('heading', { level: 1, name: 'ILP' }).waitFor({ timeout: TIMEOUT_MS });
  return page;
}

interface FirstRender {
  /** From the start of the navigation to the frame after the list's first page. */
  took: number;
  /** From the cockpit's `ilp.list` to that frame. */
  listToFrame: number;
}

/** One first render: the page loaded again on its ILP route, until the list's first frame; checked with role-based locators. */
async function firstRender(page: Page, stored: number): Promise<FirstRender> {
  await page.reload();
  // The cockpit's CSP allows no eval, so the page is asked with an expression, never a predicate.
  const times = (await page.evaluate(`Promise.race([window.__ilpFirstRender, new Promise((_, reject) => setTimeout(() => reject(new Error('the ILP page did not render its list within ${TIMEOUT_MS} ms')), ${TIMEOUT_MS}))])`)) as { frame: number; listSent: number | null };
  if (times.listSent === null) throw new Error('the list rendered before the cockpit called ilp.list');
  const measured = { took: times.frame, listToFrame: times.frame - times.listSent };
  await page.getByRole('heading', { level: 1, name: 'ILP' }).waitFor({ timeout: TIMEOUT_MS });
  if (stored === 0) {
    await page.getByText('No composition is stored yet.', { exact: false }).waitFor({ timeout: TIMEOUT_MS });
    return measured;
  }
  const rows = await page.getByRole('list', { name: 'Compositions' }).getByRole('listitem').count();
  if (rows !== PAGE) throw new Error(`the first render listed ${rows} compositions, not one page of ${PAGE}`);
  await page.getByText(`${PAGE} of ${stored.toLocaleString('en-US')} shown`).waitFor({ timeout: TIMEOUT_MS });
  const untrusted = await page.getByText('Not trusted — changed outside Silas').count();
  if (untrusted > 0) throw new Error(`${untrusted} seeded compositions failed their seal: they were not sealed as the runtime seals them`);
  return measured;
}

async function listOverWebSocket(page: Page, stored: number): Promise<number> {
  const listed = (await page.evaluate(LIST_OVER_WEBSOCKET)) as { took: number; rows: number; total: number };
  if (listed.total !== stored || listed.rows !== Math.min(PAGE, stored)) throw new Error(`ilp.list answered ${listed.rows} of ${listed.total}, not ${Math.min(PAGE, stored)} of ${stored}`);
  return listed.took;
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'silas-bench-ilp-inspector-'));
  const emptyHome = join(root, 'empty');
  const home = join(root, 'home');
  const cockpitDir = join(root, 'cockpit');
  const problems: string[] = [];
  const runtimes: BenchRuntime[] = [];
  const browser = await launchChromium();
  try {
    for (const dir of [emptyHome, home]) {
      const init = runSilasProcess(['init', '--home', dir]);
      if (init.code !== 0) throw new Error(`silas init failed: ${init.err}`);
    }
    // Started first and alone: it builds the cockpit into cockpitDir, which the other runtimes then serve.
    const empty = await startBenchRuntime(emptyHome, cockpitDir);
    runtimes.push(empty);
    if (!existsSync(join(cockpitDir, 'index.html'))) throw new Error('the runtime could not build the cockpit from the sources; run `npm run build:cockpit` to see why');
    const floorPage = await openIlp(browser, empty, problems);

    let seeded = 0;
    let seedMsPerRow = 0;
    for (const size of SIZES) {
      const name = `ilp.inspector.render_first_page_ms_${size}`;
      const projected = seedMsPerRow * (size - seeded);
      if (projected > SEED_BUDGET_MS) {
        process.stdout.write(`${JSON.stringify({ name, skipped: `seeding ${(size - seeded).toLocaleString('en-US')} more compositions would take about ${Math.round(projected / 1000)} s (over ${SEED_BUDGET_MS / 1000} s)` })}\n`);
        continue;
      }
      const seedMs = seed(home, seeded, size);
      seedMsPerRow = seedMs / (size - seeded);
      seeded = size;
      const runtime = await startBenchRuntime(home, cockpitDir);
      runtimes.push(runtime);
      const page = await openIlp(browser, runtime, problems);
      const renders: FirstRender[] = [];
      const floors: FirstRender[] = [];
      const lists: number[] = [];
      for (let run = 0; run <= RUNS; run += 1) {
        const floor = await firstRender(floorPage, 0);
        const render = await firstRender(page, size);
        const list = await listOverWebSocket(page, size);
        if (run === 0) continue;
        floors.push(floor);
        renders.push(render);
        lists.push(list);
      }
      const took = median(renders.map((r) => r.took));
      const floor = median(floors.map((r) => r.took));
      report(name, 'ms', took, {
        stored: size,
        page: PAGE,
        runs: RUNS,
        max_ms: ms(Math.max(...renders.map((r) => r.took))),
        floor_ms: ms(floor),
        added_ms: ms(took - floor),
        list_to_frame_ms: ms(median(renders.map((r) => r.listToFrame))),
        floor_list_to_frame_ms: ms(median(floors.map((r) => r.listToFrame))),
        floor_ws_list_ms: ms(median(lists)),
        seed_s: Number((seedMs / 1000).toFixed(1)),
      });
      await page.close();
      await runtime.stop();
      runtimes.pop();
    }
    if (problems.length > 0) throw new Error(`the pages reported problems:\n${problems.join('\n')}`);
  } finally {
    await browser.close();
    for (const runtime of runtimes) await runtime.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
