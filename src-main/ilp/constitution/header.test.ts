import { describe, expect, it } from 'vitest';
import { checkConstitutionalHeader } from './header.js';

describe('checkConstitutionalHeader', () => {
  it('fills what the header omits with the RFC\'s values, and only that', () => {
    expect(checkConstitutionalHeader({ domain: 'finance', depth: 1, budget_usd: 0.01, max_depth: 3 })).toEqual({
      ok: true,
      header: { domain: 'finance', depth: 1, budget_usd: 0.01, max_depth: 3, max_budget_usd: 1, max_invocations: 10, enforce_epistemic_honesty: true, confidence_threshold: 0.7, require_reasoning_trace: true, detect_loops: true, max_same_agent_consecutive: 2 },
    });
  });

  it('a missing header is refused, never defaulted', () => {
    expect(checkConstitutionalHeader(undefined)).toMatchObject({ ok: false, field: 'Constitutional-Header', message: /no Constitutional-Header/ });
  });

  it('a header that lies or strays is refused naming the field', () => {
    const base = { domain: 'finance', depth: 1, budget_usd: 0 };
    expect(checkConstitutionalHeader({ ...base, budget_usd: -5 })).toMatchObject({ ok: false, field: 'Constitutional-Header.budget_usd' });
    expect(checkConstitutionalHeader({ ...base, max_budget_usd: 0 })).toMatchObject({ ok: false, field: 'Constitutional-Header.max_budget_usd' });
    expect(checkConstitutionalHeader({ ...base, depth: -1 })).toMatchObject({ ok: false, field: 'Constitutional-Header.depth' });
    expect(checkConstitutionalHeader({ ...base, depth: 1.5 })).toMatchObject({ ok: false, field: 'Constitutional-Header.depth' });
    expect(checkConstitutionalHeader({ ...base, confidence_threshold: 2 })).toMatchObject({ ok: false, field: 'Constitutional-Header.confidence_threshold' });
    expect(checkConstitutionalHeader({ ...base, max_depth: 1e9 })).toMatchObject({ ok: false, field: 'Constitutional-Header.max_depth' });
    expect(checkConstitutionalHeader({ ...base, skip_enforcer: true })).toMatchObject({ ok: false, field: 'Constitutional-Header.skip_enforcer' });
    expect(checkConstitutionalHeader({ depth: 1, budget_usd: 0 })).toMatchObject({ ok: false, field: 'Constitutional-Header.domain' });
    expect(checkConstitutionalHeader({ ...base, domain: '../etc' })).toMatchObject({ ok: false, field: 'Constitutional-Header.domain' });
    expect(checkConstitutionalHeader({ ...base, detect_loops: 'no' })).toMatchObject({ ok: false, field: 'Constitutional-Header.detect_loops' });
  });
});
