import { act, cleanup, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeTransport } from '../../testing/fake-transport.js';
import { renderCockpit } from '../../testing/render-cockpit.js';
import { ConnectionNotice } from './ConnectionNotice.js';
import { NO_TOKEN_REASON } from '../../lib/boot.js';

afterEach(cleanup);

describe('ConnectionNotice', () => {
  it('says to run `silas open` (or use the URL `silas start` printed) when there is no token, never control.json', () => {
    renderCockpit(<ConnectionNotice />, { transport: new FakeTransport('no-token') });
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toBe(
      'No token. This cockpit needs the access token of a running Silas runtime. Run silas open in a terminal (it prints a fresh link; it needs your OS keyring), or open the URL silas start printed.',
    );
    expect(alert.textContent).not.toContain('control.json');
  });

  it('explains a rejected token and how to get a fresh link, never pointing at control.json', () => {
    renderCockpit(<ConnectionNotice />, { transport: new FakeTransport('unauthorised') });
    const text = screen.getByRole('alert').textContent;
    expect(text).toContain('Token rejected');
    expect(text).toContain('Run silas open in a terminal (it prints a fresh link; it needs your OS keyring), or open the URL silas start printed.');
    expect(text).not.toContain('control.json');
  });

  it('gives the same advice as the disconnected transport\'s reason', () => {
    expect(NO_TOKEN_REASON).toBe('No token. Run `silas open` in a terminal (it prints a fresh link; it needs your OS keyring), or open the URL `silas start` printed.');
  });

  it('warns while reconnecting and disappears once connected', () => {
    const transport = new FakeTransport('reconnecting');
    const { container } = renderCockpit(<ConnectionNotice />, { transport });
    expect(container.textContent).toContain('Reconnecting');
    act(() => transport.setState('connected'));
    expect(container.textContent).toBe('');
  });
});
