import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { exportedAudit } from './fixtures/mcp-proxy.js';
import { runSilas } from './fixtures/silas-runtime.js';
import { expect, mainNav, openCockpit, test } from './fixtures/test.js';

/*
 * A plan's journey (docs/silas/executor.md "`silas run`"): `silas run` shows a plan and waits; the
 * person approves it on the cockpit's Review surface (the runtime signs a token bound to the plan
 * hash with the owner key); the scripted agent's calls run in the bubblewrap sandbox; only the
 * plan's verify checks, run in a separate read-only sandbox, decide the outcome; every step is in
 * the audit chain.
 */

const PLAN = `---
id: task-write-report
type: task
title: Write the status report
verify:
  - name: report_written
    run: "cat report.txt"
    expect: { contains: "all systems nominal" }
---

Write report.txt in the work directory saying that all systems are nominal.
`;

const CALLS = JSON.stringify([{ tool: 'shell_exec', args: { command: ['/bin/sh', '-c', 'echo "all systems nominal" > report.txt'] } }]);

async function openReview(page: Page): Promise<void> {
  await mainNav(page).getByRole('link', { name: /^Review/ }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Review' })).toBeVisible();
}

test.describe('a Silas plan approved in the cockpit, executed in the sandbox, verified outside it', () => {
  /** The test's own directory, its plan, the scripted agent's calls and the task's work directory. */
  let dir = '';
  let plan = '';
  let calls = '';
  let workDir = '';
  test.beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'silas-e2e-plan-'));
    plan = join(dir, 'plan.md');
    calls = join(dir, 'calls.json');
    workDir = join(dir, 'work');
    writeFileSync(plan, PLAN);
    writeFileSync(calls, CALLS);
    mkdirSync(workDir);
  });
  test.afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('Approve and sign runs the plan once; its verify check decides success; the chain holds every step', async ({ page, silas, browserProblems }) => {
    await openCockpit(page, silas);
    await openReview(page);

    const hash = JSON.parse((await runSilas(['plan', 'check', plan, '--json'])).stdout) as { plan_hash: string };
    // Not awaited: `silas run` waits for the person's decision.
    const run = silas.cli('run', plan, '--agent', `script:${calls}`, '--workdir', workDir, '--json');
    const card = page.getByRole('article', { name: 'Plan approval: Write the status report' });
    await expect(card).toBeVisible();
    await expect(card.getByRole('heading', { name: 'Run plan: Write the status report (task)' })).toBeVisible();
    // A medium-risk card keeps the plan's hash, checks and briefing behind Details (§0.5.3).
    const details = card.getByRole('button', { name: 'Details' });
    await expect(details).toHaveAttribute('aria-expanded', 'false');
    await details.click();
    await expect(card.getByLabel(`Plan hash starts ${hash.plan_hash.slice(0, 8)}`)).toBeVisible();
    await expect(card.getByRole('list', { name: 'Checks' })).toContainText('cat report.txt');
    const approve = card.getByRole('button', { name: 'Approve and sign' });
    await expect(approve).toHaveAccessibleDescription('Signs this exact plan with your owner key; it runs once in a sandbox and only its checks decide success');
    await approve.click();

    const result = await run;
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    const output = JSON.parse(result.stdout) as { status: string; verification_results: { name: string; passed: boolean }[]; audit_ids: string[] };
    expect(output.status).toBe('done');
    expect(output.verification_results).toEqual([expect.objectContaining({ name: 'report_written', passed: true })]);
    expect(readFileSync(join(workDir, 'report.txt'), 'utf8')).toBe('all systems nominal\n');
    await expect(page.getByText('No decisions waiting')).toBeVisible();

    const audit = await exportedAudit(silas);
    const events = audit.map((e) => e.event);
    const approved = audit.find((e) => e.event === 'silas.plan_approval.approved');
    expect(approved, `events: ${events.join(', ')}`).toMatchObject({ plan_hash: hash.plan_hash, work_item_id: 'task-write-report', key_fingerprint: expect.any(String) });
    const order = ['silas.plan_approval.requested', 'silas.plan_approval.approved'].map((name) => events.indexOf(name));
    expect(order.every((i) => i >= 0) && order[0]! < order[1]!).toBe(true);
    expect(output.audit_ids.length).toBeGreaterThan(0);
    const verify = await silas.cli('audit', 'verify');
    expect(verify.code, `${verify.stdout}\n${verify.stderr}`).toBe(0);

    expect(browserProblems).toEqual([]);
  });

  test('Deny runs nothing and silas run says so', async ({ page, silas, browserProblems }) => {
    await openCockpit(page, silas);
    await openReview(page);

    const run = silas.cli('run', plan, '--agent', `script:${calls}`, '--workdir', workDir, '--json');
    const card = page.getByRole('article', { name: 'Plan approval: Write the status report' });
    await expect(card, 'the card should appear while silas run waits').toBeVisible();
    await card.getByRole('button', { name: 'Deny' }).click();
    const result = await run;
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'blocked', summary: expect.stringMatching(/not approved \(deny\).*nothing ran/) });
    expect(() => readFileSync(join(workDir, 'report.txt'))).toThrow();
    const events = (await exportedAudit(silas)).map((e) => e.event);
    expect(events).toContain('silas.plan_approval.denied');
    expect(events).not.toContain('silas.plan_approval.approved');
    expect(browserProblems).toEqual([]);
  });
});
