import { describe, expect, it } from 'vitest';
import { createTestLedger } from '../testing/ledger.js';
import { useTempDirs } from '../testing/temp.js';

const tempDir = useTempDirs('silas-verify-progress-');

describe('verifying a long ledger says how far it got', () => {
  it('reports every N entries walked and still finds the same verdict', () => {
    const ledger = createTestLedger(tempDir());
    for (let i = 0; i < 34; i += 1) ledger.audit.append('operator.note', { text: `note ${i}` });
    const total = ledger.audit.head()!.index + 1;
    const heard: number[] = [];
    const result = ledger.audit.verifyChain({ every: 10, report: (checked) => heard.push(checked) });
    expect(result).toEqual(ledger.audit.verifyChain());
    expect(result.valid).toBe(true);
    expect(heard).toEqual(Array.from({ length: Math.floor(total / 10) }, (_, i) => (i + 1) * 10));
  });
});
