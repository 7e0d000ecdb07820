import { cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeRuntime, flush, renderCockpit } from '../../testing/render-cockpit.js';
import type { FakeTransport } from '../../testing/fake-transport.js';
import { SIGN_OUT_CONSEQUENCE, SignOutOthers, signedOutText } from './SignOutOthers.js';

afterEach(cleanup);

function connected(answer?: Parameters<FakeTransport['handle']>[1]): FakeTransport {
  const transport = fakeRuntime();
  if (answer) transport.handle('cockpit.revokeSessions', answer);
  transport.state = 'connected';
  return transport;
}

const signOutButton = () => screen.getByRole('button', { name: 'Sign out other sessions' });

describe('SignOutOthers', () => {
  it('asks first, saying what happens, with focus on "Keep them"; keeping them calls nothing', async () => {
    const transport = connected(() => ({ ok: true, value: { credentials: 1, sessions: 1 } }));
    renderCockpit(<SignOutOthers />, { transport });
    await flush();
    fireEvent.click(signOutButton());
    const dialog = screen.getByRole('alertdialog', { name: 'Sign out other sessions?' });
    expect(dialog.textContent).toContain(SIGN_OUT_CONSEQUENCE);
    expect(SIGN_OUT_CONSEQUENCE).toMatch(/^Signs out every other cockpit tab and link; this one stays/);
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Keep them' }));
    fireEvent.click(screen.getByRole('button', { name: 'Keep them' }));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(transport.callsTo('cockpit.revokeSessions')).toEqual([]);
  });

  it('signs the others out through cockpit.revokeSessions and says how many', async () => {
    const transport = connected(() => ({ ok: true, value: { credentials: 3, sessions: 2 } }));
    renderCockpit(<SignOutOthers />, { transport });
    await flush();
    fireEvent.click(signOutButton());
    fireEvent.click(screen.getByRole('button', { name: 'Sign out others' }));
    await flush();
    expect(transport.callsTo('cockpit.revokeSessions')).toEqual([{}]);
    expect(screen.getByRole('status').textContent).toContain('2 open tabs signed out; 3 links no longer work.');
  });

  it("shows the runtime's refusal in words", async () => {
    const transport = connected(() => ({ ok: false, error: { code: 'E_UNAUTHORIZED', message: 'cockpit.revokeSessions needs the "decide" capability' } }));
    renderCockpit(<SignOutOthers />, { transport });
    await flush();
    fireEvent.click(signOutButton());
    fireEvent.click(screen.getByRole('button', { name: 'Sign out others' }));
    await flush();
    expect(screen.getByRole('alert').textContent).toMatch(/^Could not sign out other sessions: cockpit\.revokeSessions needs the "decide" capability/);
  });

  it('cannot be pressed while the cockpit is not connected', () => {
    renderCockpit(<SignOutOthers />, { transport: fakeRuntime() });
    expect((signOutButton() as HTMLButtonElement).disabled).toBe(true);
  });

  it('words the counts', () => {
    expect(signedOutText({ credentials: 0, sessions: 0 })).toBe('There was no other cockpit link; nothing was signed out.');
    expect(signedOutText({ credentials: 1, sessions: 0 })).toBe('0 open tabs signed out; 1 link no longer works.');
    expect(signedOutText({ credentials: 2, sessions: 1 })).toBe('1 open tab signed out; 2 links no longer work.');
  });
});
