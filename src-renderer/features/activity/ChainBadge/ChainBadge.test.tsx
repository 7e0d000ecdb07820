import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../../../src-shared/contract/index.js';
import { FakeTransport } from '../../../test/fake-transport.js';
import { fakeRuntime, flush, renderCockpit } from '../../../test/render-cockpit.js';
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

  it('cannot be re-verified while disconnected', async () => {
    const transport = fakeRuntime(10);
    transport.state = 'connected';
    renderCockpit(<ChainBadge />, { transport });
    await flush();
    act(() => transport.setState('reconnecting'));
    expect((reverify() as HTMLButtonElement).disabled).toBe(true);
  });
});
