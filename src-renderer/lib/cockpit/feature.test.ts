import { describe, expect, it, vi } from 'vitest';
import { auditEntry } from '../../testing/audit-fixtures.js';
import { deliverEvent, type FeatureWiring } from './feature.js';

const run = { mode: 'full', fromIndex: 0, checked: 10, total: 100, startedAt: '2026-01-01T12:00:00.000Z' } as const;

function feature(parts: Partial<FeatureWiring> = {}): FeatureWiring {
  return { reload: vi.fn(), actions: {}, dispose: vi.fn(), ...parts };
}

describe('deliverEvent', () => {
  it('hands a ledger entry to every feature, in the order of the list', () => {
    const seen: string[] = [];
    const features = [feature({ entry: (e) => seen.push(`ledger ${e.index}`) }), feature(), feature({ entry: (e) => seen.push(`page ${e.index}`) })];
    deliverEvent(features, 'audit.appended', auditEntry(7));
    expect(seen).toEqual(['ledger 7', 'page 7']);
  });

  it('hands any other event, checked against the contract, only to the features listening to it', () => {
    const progress = vi.fn();
    const entry = vi.fn();
    deliverEvent([feature({ events: { 'audit.verifyProgress': progress }, entry })], 'audit.verifyProgress', run);
    expect(progress).toHaveBeenCalledWith(run);
    expect(entry).not.toHaveBeenCalled();
  });

  it('drops a payload the contract refuses and an event no one declared', () => {
    const progress = vi.fn();
    const entry = vi.fn();
    const features = [feature({ events: { 'audit.verifyProgress': progress }, entry })];
    deliverEvent(features, 'audit.verifyProgress', { ...run, checked: -1 });
    deliverEvent(features, 'audit.appended', { index: 'seven' });
    deliverEvent(features, 'silas.unknown', run);
    expect(progress).not.toHaveBeenCalled();
    expect(entry).not.toHaveBeenCalled();
  });
});
