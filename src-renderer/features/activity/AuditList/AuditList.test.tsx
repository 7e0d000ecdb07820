import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AuditEntry } from '../../../../src-shared/schemas/audit.js';
import { auditEntry, auditRange } from '../../../testing/audit-fixtures.js';
import { stubLayout } from '../../../testing/layout.js';
import { AuditList } from './AuditList.js';

let hundredThousand: AuditEntry[];
let restoreLayout: () => void;

beforeAll(() => {
  hundredThousand = auditRange(0, 99_999);
});
beforeEach(() => {
  restoreLayout = stubLayout({ viewport: 600, row: 30 });
});
afterEach(() => {
  cleanup();
  restoreLayout();
});

function rows(): HTMLElement[] {
  return within(screen.getByRole('list', { name: 'Audit log' })).queryAllByRole('listitem');
}

describe('AuditList', () => {
  it('renders only a window of rows for 100,000 entries, newest first', () => {
    render(<AuditList entries={hundredThousand} total={100_000} hasMore={false} loadingMore={false} onNearEnd={() => {}} />);
    const rendered = rows();
    expect(rendered.length).toBeGreaterThan(10);
    expect(rendered.length).toBeLessThan(60);
    expect(rendered[0]!.textContent).toContain('#99999');
    expect(rendered[0]!.getAttribute('aria-setsize')).toBe('100000');
    const sizer = screen.getByRole('list', { name: 'Audit log' }).firstElementChild as HTMLElement;
    expect(sizer.style.height).toBe(`${100_000 * 30}px`);
  });

  it('renders the rows further down when scrolled', () => {
    render(<AuditList entries={hundredThousand} total={100_000} hasMore={false} loadingMore={false} onNearEnd={() => {}} />);
    const list = screen.getByRole('list', { name: 'Audit log' });
    list.scrollTop = 30 * 50_000;
    fireEvent.scroll(list);
    const rendered = rows();
    expect(rendered.length).toBeLessThan(60);
    expect(rendered.some((row) => row.textContent?.startsWith('#49999'))).toBe(true);
    expect(rendered.some((row) => row.textContent?.startsWith('#99999'))).toBe(false);
  });

  it('expands a row to its full JSON and collapses it again', () => {
    const entries = auditRange(0, 9);
    render(<AuditList entries={entries} total={10} hasMore={false} loadingMore={false} onNearEnd={() => {}} />);
    const row = rows().find((r) => r.textContent?.startsWith('#7'))!;
    const button = within(row).getByRole('button');
    expect(button.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(button);
    expect(button.getAttribute('aria-expanded')).toBe('true');
    const pre = row.querySelector('pre');
    expect(JSON.parse(pre?.textContent ?? '')).toEqual(entries[2]);
    for (const field of ['index', 'id', 'ts', 'event', 'data', 'prevHash', 'hash']) expect(pre?.textContent).toContain(`"${field}"`);
    fireEvent.click(button);
    expect(button.getAttribute('aria-expanded')).toBe('false');
    expect(row.querySelector('pre')).toBeNull();
  });

  it('keeps a row expanded when newer entries arrive on top', () => {
    const { rerender } = render(<AuditList entries={auditRange(0, 9)} total={10} hasMore={false} loadingMore={false} onNearEnd={() => {}} />);
    fireEvent.click(within(rows().find((r) => r.textContent?.startsWith('#5'))!).getByRole('button'));
    rerender(<AuditList entries={[auditEntry(10), ...auditRange(0, 9)]} total={11} hasMore={false} loadingMore={false} onNearEnd={() => {}} />);
    expect(rows()[0]!.textContent).toContain('#10');
    const row = rows().find((r) => r.textContent?.startsWith('#5'))!;
    expect(within(row).getByRole('button').getAttribute('aria-expanded')).toBe('true');
  });

  it('asks for older entries when the end of what is loaded comes into view', () => {
    const onNearEnd = vi.fn();
    const { rerender } = render(<AuditList entries={auditRange(500, 999)} total={1000} hasMore loadingMore={false} onNearEnd={onNearEnd} />);
    expect(onNearEnd).not.toHaveBeenCalled();
    const list = screen.getByRole('list', { name: 'Audit log' });
    list.scrollTop = 30 * 450;
    fireEvent.scroll(list);
    expect(onNearEnd).toHaveBeenCalledTimes(1);
    rerender(<AuditList entries={auditRange(500, 999)} total={1000} hasMore loadingMore onNearEnd={onNearEnd} />);
    expect(onNearEnd).toHaveBeenCalledTimes(1);
  });

  it('does not ask for more when the whole chain is loaded', () => {
    const onNearEnd = vi.fn();
    render(<AuditList entries={auditRange(0, 5)} total={6} hasMore={false} loadingMore={false} onNearEnd={onNearEnd} />);
    expect(onNearEnd).not.toHaveBeenCalled();
  });
});
