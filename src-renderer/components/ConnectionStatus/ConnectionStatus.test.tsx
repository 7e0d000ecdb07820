import { act, cleanup, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConnectionState } from '../../lib/transport.js';
import { FakeTransport } from '../../testing/fake-transport.js';
import { renderCockpit } from '../../testing/render-cockpit.js';
import { ConnectionStatus } from './ConnectionStatus.js';

afterEach(cleanup);

describe('ConnectionStatus', () => {
  it.each<[ConnectionState, string]>([
    ['connecting', 'Connecting…'],
    ['connected', 'Connected'],
    ['reconnecting', 'Reconnecting…'],
    ['unauthorised', 'Unauthorised — token rejected'],
    ['no-token', 'No token'],
  ])('shows %s as "%s"', (state, text) => {
    const transport = new FakeTransport();
    renderCockpit(<ConnectionStatus />, { transport });
    act(() => transport.setState(state));
    expect(screen.getByRole('status', { name: 'Connection' }).textContent).toBe(text);
  });

  it('follows the transport as it drops and comes back', () => {
    const transport = new FakeTransport('connected');
    renderCockpit(<ConnectionStatus />, { transport });
    const status = screen.getByRole('status', { name: 'Connection' });
    expect(status.textContent).toBe('Connected');
    act(() => transport.setState('reconnecting'));
    expect(status.textContent).toBe('Reconnecting…');
    act(() => transport.setState('connected'));
    expect(status.textContent).toBe('Connected');
  });
});
