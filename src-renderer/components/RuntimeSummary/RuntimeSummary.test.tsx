import { cleanup, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeTransport, runtimeInfo } from '../../testing/fake-transport.js';
import { fakeRuntime, flush, renderCockpit } from '../../testing/render-cockpit.js';
import { RuntimeSummary, shortFingerprint } from './RuntimeSummary.js';

afterEach(cleanup);

describe('shortFingerprint', () => {
  it('keeps short values and cuts long ones', () => {
    expect(shortFingerprint('SHA256:abc')).toBe('SHA256:abc');
    expect(shortFingerprint('SHA256:0123456789abcdef0123')).toBe('SHA256:012345678…');
  });
});

describe('RuntimeSummary', () => {
  it('shows a dash until runtime.info answers', () => {
    renderCockpit(<RuntimeSummary />, { transport: new FakeTransport() });
    expect(screen.getByLabelText('Runtime').textContent).toBe('Runtime—');
  });

  it('shows mode, home and the owner key fingerprint from runtime.info', async () => {
    const transport = fakeRuntime();
    transport.state = 'connected';
    renderCockpit(<RuntimeSummary />, { transport });
    await flush();
    const summary = screen.getByLabelText('Runtime');
    expect(summary.textContent).toContain('headless');
    expect(summary.textContent).toContain(runtimeInfo.home);
    expect(screen.getByTitle(runtimeInfo.ownerFingerprint).textContent).toBe(shortFingerprint(runtimeInfo.ownerFingerprint));
  });
});
