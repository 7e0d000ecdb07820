import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { StandingApproval } from '../../store/standing-slice.js';
import { createCockpitStore } from '../../store/cockpit-store.js';
import { auditEntry } from '../../testing/audit-fixtures.js';
import { FakeTransport, settle } from '../../testing/fake-transport.js';
import { standingApproval } from '../../testing/standing-fixtures.js';
import { STANDING_REFRESH_DELAY_MS } from './standing.js';
import { connectCockpit } from './connect.js';

function runtimeWith(standing: () => StandingApproval[]): FakeTransport {
  return new FakeTransport().handle('approvals.listStanding', () => ({ ok: true, value: { standing: standing() } }));
}

const appended = (index: number, event: string) => auditEntry(index, { event, data: { server: 'files', tool: 'delete_file' } });
const ids = (items: readonly { id: string }[]) => items.map((item) => item.id);

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('connectCockpit: standing approvals', () => {
  it('loads approvals.listStanding on every (re)connect', async () => {
    const transport = runtimeWith(() => [standingApproval(1)]);
    const store = createCockpitStore();
    connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();
    expect(transport.callsTo('approvals.listStanding')).toEqual([{}]);
    expect(store.getState().standing).toMatchObject({ status: 'ready', items: [standingApproval(1)] });
    transport.setState('reconnecting');
    transport.setState('connected');
    await settle();
    expect(transport.callsTo('approvals.listStanding')).toHaveLength(2);
  });

  it('refreshes once, debounced, after standing_created and standing_revoked events, and not for others', async () => {
    let standing = [standingApproval(1)];
    const transport = runtimeWith(() => standing);
    const store = createCockpitStore();
    connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();

    transport.emit('audit.appended', appended(10, 'approvals.approved'));
    transport.emit('audit.appended', appended(11, 'aip.decision'));
    vi.advanceTimersByTime(STANDING_REFRESH_DELAY_MS * 2);
    expect(transport.callsTo('approvals.listStanding')).toHaveLength(1);

    standing = [standingApproval(2)];
    transport.emit('audit.appended', appended(12, 'approvals.standing_created'));
    vi.advanceTimersByTime(STANDING_REFRESH_DELAY_MS - 50);
    transport.emit('audit.appended', appended(13, 'approvals.standing_revoked'));
    vi.advanceTimersByTime(STANDING_REFRESH_DELAY_MS - 50);
    expect(transport.callsTo('approvals.listStanding')).toHaveLength(1);
    vi.advanceTimersByTime(50);
    await settle();
    expect(transport.callsTo('approvals.listStanding')).toHaveLength(2);
    expect(ids(store.getState().standing.items)).toEqual(['standing-2']);
    expect(store.getState().audit.entries.map((e) => e.index)).toEqual([13, 12, 11, 10]);
  });

  it('drops a load overtaken by a newer one, and stops refreshing once disposed', async () => {
    const answers: ((standing: StandingApproval[]) => void)[] = [];
    const transport = new FakeTransport().handle(
      'approvals.listStanding',
      () => new Promise((resolve) => answers.push((standing) => resolve({ ok: true, value: { standing } }))),
    );
    const store = createCockpitStore();
    const cockpit = connectCockpit({ transport, store });
    transport.setState('connected');
    transport.emit('audit.appended', appended(1, 'approvals.standing_created'));
    vi.advanceTimersByTime(STANDING_REFRESH_DELAY_MS);
    expect(answers).toHaveLength(2);
    answers[1]!([standingApproval(2)]);
    await settle();
    answers[0]!([standingApproval(1)]);
    await settle();
    expect(ids(store.getState().standing.items)).toEqual(['standing-2']);

    transport.emit('audit.appended', appended(2, 'approvals.standing_revoked'));
    cockpit.dispose();
    vi.advanceTimersByTime(STANDING_REFRESH_DELAY_MS * 2);
    expect(answers).toHaveLength(2);
  });

  it('revokes with approvals.revokeStanding, one at a time, then reloads the list', async () => {
    let standing = [standingApproval(1), standingApproval(2)];
    let answer: () => void = () => {};
    const transport = runtimeWith(() => standing).handle(
      'approvals.revokeStanding',
      (args) =>
        new Promise((resolve) => {
          answer = () => {
            standing = [standingApproval(2)];
            resolve({ ok: true, value: args });
          };
        }),
    );
    const store = createCockpitStore();
    const cockpit = connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();
    cockpit.actions.revokeStanding('standing-1');
    cockpit.actions.revokeStanding('standing-2');
    expect(transport.callsTo('approvals.revokeStanding')).toEqual([{ id: 'standing-1' }]);
    expect(store.getState().standing.revoking).toBe('standing-1');
    answer();
    await settle();
    expect(store.getState().standing).toMatchObject({ revoking: null, revokeError: null });
    expect(ids(store.getState().standing.items)).toEqual(['standing-2']);
    expect(transport.callsTo('approvals.listStanding')).toHaveLength(2);
  });

  it('keeps a failed revocation with the runtime message, and reloads what the runtime holds', async () => {
    const transport = runtimeWith(() => [standingApproval(1)]).handle('approvals.revokeStanding', () => ({
      ok: false,
      error: { code: 'E_DB_FAILURE', message: 'database is locked' },
    }));
    const store = createCockpitStore();
    const cockpit = connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();
    cockpit.actions.revokeStanding('standing-1');
    await settle();
    expect(store.getState().standing).toMatchObject({ revoking: null, revokeError: { id: 'standing-1', message: 'database is locked (E_DB_FAILURE)' } });
    expect(ids(store.getState().standing.items)).toEqual(['standing-1']);
    expect(transport.callsTo('approvals.listStanding')).toHaveLength(2);
  });
});
