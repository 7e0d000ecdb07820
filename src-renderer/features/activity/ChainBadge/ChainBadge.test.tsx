import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../../../src-shared/contract/index.js';
import { FakeTransport } from '../../../testing/fake-transport.js';
import { fakeRuntime, flush, renderCockpit } from '../../../testing/render-cockpit.js';
import { ChainBadge } from './ChainBadge.js';

afterEach(cleanup);

const badge = () => screen.getByRole('status', { name: 'Audit chain' });
const reverify = () => screen.getByRole('button', { name: 'Re-verify chain' });

describe('ChainBadge', () => {
  it('says "Not verified" before any verification', () => {
    renderCockpit(<ChainBadge />, { transport: new FakeTransport() });
    expect(badge().textContent).toBe('Not verified');
    expect((reverify() as HTMLButtonElement).disabled).toBe(true);
  });

  it('shows an intact chain with the verified entry count after connecting', async () => {
    const transport = fakeRuntime(1234);
    transport.state = 'connected';
    renderCockpit(<ChainBadge />, { transport });
    await flush();
    expect(badge().textContent).toBe('Chain intact · 1,234 entries verified');
  });

  it('shows where the chain broke and why', async () => {
    const transport = fakeRuntime(50, { valid: false, checkpoints: 1, firstInvalid: { index: 17, id: 'entry-17', reason: 'hash does not match' } } as never);
    transport.state = 'connected';
    renderCockpit(<ChainBadge />, { transport });
    await flush();
    expect(badge().textContent).toBe('Chain broken at entry 17: hash does not match');
  });

  it('re-verifies on request, showing "Verifying…" meanwhile', async () => {
    let answer: (envelope: Envelope<unknown>) => void = () => {};
    const transport = fakeRuntime(10);
    transport.state = 'connected';
    renderCockpit(<ChainBadge />, { transport });
    await flush();
    expect(transport.callsTo('audit.verify')).toHaveLength(1);

    transport.handle('audit.verify', () => new Promise((resolve) => (answer = resolve)));
    fireEvent.click(reverify());
    await flush();
    expect(transport.callsTo('audit.verify')).toHaveLength(2);
    expect(badge().textContent).toBe('Verifying…');
    expect((reverify() as HTMLButtonElement).disabled).toBe(true);

    answer({
      ok: true,
      value: { valid: false, entries: 11, checkpoints: 0, firstInvalid: { index: 3, id: null, reason: 'entry deleted' }, verifiedAt: 'now' },
    });
    await flush();
    expect(badge().textContent).toBe('Chain broken at entry 3: entry deleted');
    expect((reverify() as HTMLButtonElement).disabled).toBe(false);
  });

  it('shows a failed verification call without a verdict', async () => {
    const transport = fakeRuntime(10).handle('audit.verify', () => ({ ok: false, error: { code: 'E_DB_FAILURE', message: 'disk I/O error' } }));
    transport.state = 'connected';
    const { container } = renderCockpit(<ChainBadge />, { transport });
    await flush();
    expect(badge().textContent).toBe('Not verified');
    expect(container.textContent).toContain('Verification failed: disk I/O error (E_DB_FAILURE)');
  });

  it('re-verifies everything on request: a full run', async () => {
    const transport = fakeRuntime(10);
    transport.state = 'connected';
    renderCockpit(<ChainBadge />, { transport });
    await flush();
    fireEvent.click(reverify());
    await flush();
    // The connect checks only what is new (the default); the person's request checks everything.
    expect(transport.callsTo('audit.verify')).toEqual([{}, { mode: 'full' }]);
  });

  it("shows the runtime's last verdict at once while a connect checks what is new, with progress", async () => {
    const last = { valid: true, entries: 900, checkpoints: 3, firstInvalid: null, mode: 'full', fromIndex: 0, checked: 900, verifiedUpTo: null, verifiedAt: '2026-01-01T11:00:00.000Z' };
    const running = { mode: 'new', fromIndex: 899, checked: 0, total: 101, startedAt: '2026-01-01T12:00:00.000Z' };
    const transport = fakeRuntime(1000)
      .handle('audit.verify', () => new Promise(() => undefined))
      .handle('audit.verifyStatus', () => ({ ok: true, value: { last, running, error: null } }));
    transport.state = 'connected';
    const { container } = renderCockpit(<ChainBadge />, { transport });
    await flush();
    expect(badge().textContent).toBe('Chain intact · 900 entries verified');
    expect(screen.getByLabelText('Verification progress').textContent).toBe('Checking new entries… 0 of 101');

    act(() => transport.emit('audit.verifyProgress', { ...running, checked: 50 }));
    expect(screen.getByLabelText('Verification progress').textContent).toBe('Checking new entries… 50 of 101');

    act(() => transport.emit('audit.verified', { last: { ...last, entries: 1000, mode: 'new', fromIndex: 899, checked: 101 }, running: null, error: null }));
    expect(badge().textContent).toBe('Chain intact · 1,000 entries verified');
    expect(container.querySelector('.chain__progress')).toBeNull();
    expect(badge().getAttribute('title')).toContain('entries new since the previous check');
  });

  it('cancels a run: the last verdict stays and no failure is shown', async () => {
    const last = { valid: true, entries: 10, checkpoints: 0, firstInvalid: null, mode: 'full', fromIndex: 0, checked: 10, verifiedUpTo: null, verifiedAt: '2026-01-01T11:00:00.000Z' };
    let answer: (envelope: Envelope<unknown>) => void = () => {};
    const transport = fakeRuntime(10)
      .handle('audit.verifyStatus', () => ({ ok: true, value: { last, running: null, error: null } }))
      .handle('audit.cancelVerify', () => {
        answer({ ok: false, error: { code: 'E_UNAVAILABLE', message: 'the verification was cancelled' } });
        return { ok: true, value: { cancelled: true } };
      });
    transport.state = 'connected';
    const { container } = renderCockpit(<ChainBadge />, { transport });
    await flush();
    transport.handle('audit.verify', () => new Promise((resolve) => (answer = resolve)));
    fireEvent.click(reverify());
    await flush();
    expect(badge().textContent).toBe('Verifying…');
    fireEvent.click(screen.getByRole('button', { name: 'Cancel verification' }));
    await flush();
    expect(transport.callsTo('audit.cancelVerify')).toHaveLength(1);
    expect(badge().textContent).toBe('Chain intact · 10 entries verified');
    expect(container.textContent).not.toContain('Verification failed');
    expect(screen.queryByRole('button', { name: 'Cancel verification' })).toBeNull();
  });

  it('cannot be re-verified while disconnected', async () => {
    const transport = fakeRuntime(10);
    transport.state = 'connected';
    renderCockpit(<ChainBadge />, { transport });
    await flush();
    act(() => transport.setState('reconnecting'));
    expect((reverify() as HTMLButtonElement).disabled).toBe(true);
  });
});
