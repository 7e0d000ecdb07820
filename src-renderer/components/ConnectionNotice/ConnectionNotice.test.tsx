import { act, cleanup, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeTransport } from '../../test/fake-transport.js';
import { renderCockpit } from '../../test/render-cockpit.js';
import { ConnectionNotice } from './ConnectionNotice.js';

afterEach(cleanup);

describe('ConnectionNotice', () => {
  it('tells the user where to find the URL when there is no token', () => {
    renderCockpit(<ConnectionNotice />, { transport: new FakeTransport('no-token') });
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('No token');
    expect(alert.textContent).toContain('silas start');
    expect(alert.textContent).toContain('cat $SILAS_HOME/control.json');
  });

  it('explains a rejected token', () => {
    renderCockpit(<ConnectionNotice />, { transport: new FakeTransport('unauthorised') });
    expect(screen.getByRole('alert').textContent).toContain('Token rejected');
  });

  it('warns while reconnecting and disappears once connected', () => {
    const transport = new FakeTransport('reconnecting');
    const { container } = renderCockpit(<ConnectionNotice />, { transport });
    expect(container.textContent).toContain('Reconnecting');
    act(() => transport.setState('connected'));
    expect(container.textContent).toBe('');
  });
});
