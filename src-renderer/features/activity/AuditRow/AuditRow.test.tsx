import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { auditEntry } from '../../../testing/audit-fixtures.js';
import { formatLocalTime } from '../audit-format.js';
import { AuditRow } from './AuditRow.js';

afterEach(cleanup);

describe('AuditRow', () => {
  it('shows index, local time, event and a one-line summary', () => {
    const entry = auditEntry(42);
    render(<AuditRow entry={entry} position={0} setSize={100} start={0} expanded={false} onToggle={() => {}} />);
    const row = screen.getByRole('listitem');
    expect(row.textContent).toBe(`#42${formatLocalTime(entry.ts)}aip.decisiontool: tool_42 · decision: allow`);
    expect(row.getAttribute('aria-setsize')).toBe('100');
    expect(row.getAttribute('aria-posinset')).toBe('1');
    expect(row.querySelector('pre')).toBeNull();
  });

  it("marks the row with its event's category and explains the event from the catalogue, old names included", () => {
    const { rerender } = render(<AuditRow entry={auditEntry(0)} position={0} setSize={2} start={0} expanded={false} onToggle={() => {}} />);
    expect(screen.getByRole('listitem').getAttribute('data-category')).toBe('policy_decision');
    expect(screen.getByText('aip.decision').getAttribute('title')).toMatch(/policy decision/);
    rerender(<AuditRow entry={{ ...auditEntry(2), event: 'silas.plan_approved' }} position={1} setSize={2} start={0} expanded={false} onToggle={() => {}} />);
    expect(screen.getByRole('listitem').getAttribute('data-category')).toBe('plan_approval');
    expect(screen.getByText('silas.plan_approved').getAttribute('title')).toMatch(/approved a plan/);
  });

  it('asks to toggle its own chain index', () => {
    const onToggle = vi.fn();
    render(<AuditRow entry={auditEntry(7)} position={3} setSize={10} start={90} expanded={false} onToggle={onToggle} />);
    fireEvent.click(screen.getByRole('button', { expanded: false }));
    expect(onToggle).toHaveBeenCalledWith(7);
  });

  it('when expanded shows the full entry as pretty JSON', () => {
    const entry = auditEntry(7);
    render(<AuditRow entry={entry} position={3} setSize={10} start={90} expanded onToggle={() => {}} />);
    const button = screen.getByRole('button', { expanded: true });
    const pre = document.getElementById(button.getAttribute('aria-controls') ?? '');
    expect(pre?.tagName).toBe('PRE');
    expect(JSON.parse(pre?.textContent ?? '')).toEqual(entry);
  });
});
