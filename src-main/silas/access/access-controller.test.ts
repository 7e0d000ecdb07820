import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GateResult } from '../../../src-shared/silas/gates.js';
import { createTestLedger } from '../../testing/ledger.js';
import { useTempDirs } from '../../testing/temp.js';
import { MemoryAudit } from '../gates/testing/gates.js';
import { AccessController, accessControllerFactory, type CustomerContextLoader } from './access-controller.js';
import { FileCustomerContextLoader } from './customer-context.js';

/** The §13.2 levels, plus a third tier to test "highest level wins". */
const LEVELS = {
  public: { description: 'General info only', tools: ['faq_search', 'product_info'] },
  verified: { description: 'Customer-specific data', tools: ['faq_search', 'product_info', 'policy_lookup', 'claim_status'], requires: ['identity_verified'], expires_after: 900 },
  claims: { tools: ['faq_search', 'product_info', 'policy_lookup', 'claim_status', 'file_claim'], requires: ['identity_verified', 'second_factor'] },
};
const OWNER_TOOLS = ['shell_exec', 'python_exec', 'memory_search', 'web_search'];

function controller(options: { connectionId?: string; loader?: CustomerContextLoader } = {}) {
  let now = Date.parse('2026-03-01T10:00:00Z');
  const audit = new MemoryAudit();
  const access = new AccessController({
    connectionId: options.connectionId ?? 'customer-42',
    levels: LEVELS,
    ownerTools: OWNER_TOOLS,
    audit,
    now: () => now,
    customerContext: options.loader,
  });
  return { access, audit, advance: (seconds: number) => (now += seconds * 1000) };
}

const result = (gate_name: string, extra: Partial<GateResult> = {}) => GateResult.parse({ gate_name, lane: 'policy', action: 'continue', reason: '', ...extra });

describe('AccessController: level transitions', () => {
  it('starts at public with its tools', () => {
    const { access } = controller();
    expect(access.currentLevel()).toBe('public');
    expect(access.getAllowedTools()).toEqual(['faq_search', 'product_info']);
    expect(access.getCustomerContext()).toBeNull();
  });

  it('moves up when all required gates of a level have passed, and logs the transition', () => {
    const loader: CustomerContextLoader = { load: (request) => ({ customer_id: 'C-1001', name: 'Ada', level: request.level }) };
    const { access, audit } = controller({ loader });
    access.gatePassed('identity_verified');
    expect(access.currentLevel()).toBe('verified');
    expect(access.getAllowedTools()).toEqual(['faq_search', 'product_info', 'policy_lookup', 'claim_status']);
    expect(access.getCustomerContext()).toEqual({ customer_id: 'C-1001', name: 'Ada', level: 'verified' });
    expect(audit.named('access.level_changed')).toEqual([
      { connection_id: 'customer-42', from: 'public', to: 'verified', via_gate: 'identity_verified', verified_gates: ['identity_verified'], customer_id: 'C-1001', granted_at: '2026-03-01T10:00:00.000Z' },
    ]);
  });

  it('needs every required gate, in any order, and goes straight to the highest level satisfied', () => {
    const { access } = controller();
    access.gatePassed('second_factor');
    expect(access.currentLevel()).toBe('public');
    access.gatePassed('identity_verified');
    expect(access.currentLevel()).toBe('claims');
    expect(access.getAllowedTools()).toContain('file_claim');
  });

  it('ranks levels by what they require, not by where the plan writes them (the plan hash sorts keys)', () => {
    const reversed = Object.fromEntries(Object.entries(LEVELS).reverse());
    for (const levels of [LEVELS, reversed]) {
      const access = new AccessController({ connectionId: 'c', levels, ownerTools: OWNER_TOOLS, audit: new MemoryAudit() });
      access.gatePassed('identity_verified');
      expect(access.currentLevel()).toBe('verified');
      access.gatePassed('second_factor');
      expect(access.currentLevel()).toBe('claims');
    }
    const sameCount = { public: { tools: [] }, zeta: { tools: ['z'], requires: ['g'] }, alpha: { tools: ['a'], requires: ['g'] } };
    const access = new AccessController({ connectionId: 'c', levels: sameCount, ownerTools: OWNER_TOOLS, audit: new MemoryAudit() });
    access.gatePassed('g');
    expect(access.currentLevel()).toBe('zeta');
  });

  it('ignores gates no level requires, and never moves down on gate_passed', () => {
    const { access, audit } = controller();
    access.gatePassed('toxicity_in');
    expect(access.currentLevel()).toBe('public');
    access.gatePassed('identity_verified');
    access.gatePassed('identity_verified');
    expect(access.currentLevel()).toBe('verified');
    expect(audit.named('access.level_changed')).toHaveLength(1);
  });

  it('counts only policy-lane continue results: a quality score or a block grants nothing', () => {
    const { access } = controller();
    access.recordGateResults([
      result('identity_verified', { lane: 'quality', score: 1 }),
      result('second_factor', { action: 'block' }),
      result('identity_verified', { action: 'require_approval' }),
    ]);
    expect(access.currentLevel()).toBe('public');
    access.recordGateResults([result('identity_verified')]);
    expect(access.currentLevel()).toBe('verified');
  });

  it('refuses a malformed gate name', () => {
    expect(() => controller().access.gatePassed('../etc')).toThrow(/not a gate name/);
  });

  it('refuses invalid access_levels, naming the field', () => {
    const audit = new MemoryAudit();
    expect(() => new AccessController({ connectionId: 'c', levels: { public: {}, vip: { tools: ['x'] } }, ownerTools: [], audit })).toThrow(/^access_levels\.vip\.requires: level "vip" needs at least one gate/);
    expect(() => new AccessController({ connectionId: 'c', levels: { verified: { requires: ['g'], expires_after: -1 } }, ownerTools: [], audit })).toThrow(/access_levels\.verified\.expires_after/);
  });

  it('gives no tools when the goal defines no default level', () => {
    const access = new AccessController({ connectionId: 'c', levels: { verified: { tools: ['x'], requires: ['g'] } }, ownerTools: [], audit: new MemoryAudit() });
    expect(access.getAllowedTools()).toEqual([]);
    access.gatePassed('g');
    expect(access.getAllowedTools()).toEqual(['x']);
  });
});

describe('AccessController: expiry (injected clock)', () => {
  it('keeps the level until expires_after, drops to public at exactly that instant, and logs it', () => {
    const { access, audit, advance } = controller({ loader: { load: () => ({ customer_id: 'C-1' }) } });
    access.gatePassed('identity_verified');
    advance(899.999);
    expect(access.getAllowedTools()).toContain('policy_lookup');
    advance(0.001);
    expect(access.getAllowedTools()).toEqual(['faq_search', 'product_info']);
    expect(access.currentLevel()).toBe('public');
    expect(access.getCustomerContext()).toBeNull();
    expect(audit.named('access.level_expired')).toEqual([{ connection_id: 'customer-42', from: 'verified', to: 'public', granted_at: '2026-03-01T10:00:00.000Z', expires_after: 900 }]);
  });

  it('requires verification again after expiry: an unrelated gate does not restore the level', () => {
    const { access, advance } = controller();
    access.gatePassed('identity_verified');
    advance(901);
    access.gatePassed('toxicity_in');
    expect(access.currentLevel()).toBe('public');
    access.gatePassed('identity_verified');
    expect(access.currentLevel()).toBe('verified');
  });

  it('a level without expires_after does not expire', () => {
    const { access, advance } = controller();
    access.gatePassed('identity_verified');
    access.gatePassed('second_factor');
    advance(365 * 24 * 3600);
    expect(access.currentLevel()).toBe('claims');
  });

  it('snapshot reports the grant and its expiry', () => {
    const { access } = controller();
    access.gatePassed('identity_verified');
    expect(access.snapshot()).toEqual({
      connection_id: 'customer-42',
      owner: false,
      level: 'verified',
      verified_gates: ['identity_verified'],
      granted_at: '2026-03-01T10:00:00.000Z',
      expires_at: '2026-03-01T10:15:00.000Z',
      tools: ['faq_search', 'product_info', 'policy_lookup', 'claim_status'],
    });
  });
});

describe('AccessController: owner bypass', () => {
  it('the owner connection always gets the full owner toolset, whatever the levels', () => {
    const { access, audit } = controller({ connectionId: 'owner' });
    expect(access.isOwner).toBe(true);
    expect(access.getAllowedTools()).toEqual(OWNER_TOOLS);
    access.gatePassed('identity_verified');
    access.reset('goal changed');
    expect(access.getAllowedTools()).toEqual(OWNER_TOOLS);
    expect(access.getCustomerContext()).toBeNull();
    expect(audit.events).toEqual([]);
  });

  it('a message with verified owner taint gets owner tools on a customer connection', () => {
    const { access } = controller();
    expect(access.getAllowedTools({ taint: 'owner' })).toEqual(OWNER_TOOLS);
    expect(access.getAllowedTools({ taint: 'external' })).toEqual(['faq_search', 'product_info']);
  });

  it('a customer cannot become the owner by passing gates', () => {
    const { access } = controller();
    access.gatePassed('identity_verified');
    access.gatePassed('second_factor');
    expect(access.getAllowedTools()).not.toContain('shell_exec');
  });

  it('reset drops a customer back to public and logs it', () => {
    const { access, audit } = controller();
    access.gatePassed('identity_verified');
    access.reset('goal deactivated');
    expect(access.currentLevel()).toBe('public');
    expect(audit.named('access.reset')).toEqual([{ connection_id: 'customer-42', from: 'verified', to: 'public', reason: 'goal deactivated' }]);
  });

  it('the factory gives each connection its own state', () => {
    const make = accessControllerFactory({ levels: LEVELS, ownerTools: OWNER_TOOLS, audit: new MemoryAudit() });
    const a = make('customer-a');
    const b = make('customer-b');
    a.gatePassed('identity_verified');
    expect(a.currentLevel()).toBe('verified');
    expect(b.currentLevel()).toBe('public');
    expect(make('owner').isOwner).toBe(true);
  });

  it('writes transitions to the real audit chain', () => {
    const ledger = createTestLedger(useTempDirs('silas-access-')());
    const access = new AccessController({ connectionId: 'c-1', levels: LEVELS, ownerTools: [], audit: ledger.audit });
    access.gatePassed('identity_verified');
    expect(ledger.audit.tail(1)[0]).toMatchObject({ event: 'access.level_changed', data: { to: 'verified' } });
    expect(ledger.audit.verifyChain().valid).toBe(true);
    ledger.db.close();
  });
});

describe('FileCustomerContextLoader', () => {
  const temp = useTempDirs('silas-customers-');

  it('loads <connection id>.json from a private directory inside the data directory', () => {
    const dataDir = temp();
    const loader = new FileCustomerContextLoader({ dataDir, dir: 'customers' });
    writeFileSync(join(loader.dir, 'customer-42.json'), JSON.stringify({ customer_id: 'C-1', plan: 'gold' }), { mode: 0o600 });
    expect(loader.load({ connection_id: 'customer-42', level: 'verified', verified_gates: [] })).toEqual({ customer_id: 'C-1', plan: 'gold' });
    expect(loader.load({ connection_id: 'customer-43', level: 'verified', verified_gates: [] })).toBeNull();
  });

  it('refuses a directory outside the data directory or writable by others', () => {
    const dataDir = temp();
    expect(() => new FileCustomerContextLoader({ dataDir, dir: '/tmp/customers' })).toThrow(/inside the data directory/);
    expect(() => new FileCustomerContextLoader({ dataDir, dir: '../x' })).toThrow(/inside the data directory/);
    mkdirSync(join(dataDir, 'open'));
    chmodSync(join(dataDir, 'open'), 0o777);
    expect(() => new FileCustomerContextLoader({ dataDir, dir: 'open' })).toThrow(/writable by other users/);
  });

  it('returns null for path tricks, symlinks, world-writable files, oversized files and non-objects', () => {
    const dataDir = temp();
    const loader = new FileCustomerContextLoader({ dataDir, dir: 'customers' });
    const elsewhere = join(temp(), 'victim.json');
    writeFileSync(elsewhere, '{"customer_id":"someone else"}');
    symlinkSync(elsewhere, join(loader.dir, 'linked.json'));
    writeFileSync(join(loader.dir, 'open.json'), '{"a":1}');
    chmodSync(join(loader.dir, 'open.json'), 0o666);
    writeFileSync(join(loader.dir, 'big.json'), JSON.stringify({ pad: 'x'.repeat(70_000) }), { mode: 0o600 });
    writeFileSync(join(loader.dir, 'list.json'), '[1,2]', { mode: 0o600 });
    writeFileSync(join(loader.dir, 'bad.json'), '{not json', { mode: 0o600 });
    for (const id of ['../victim', 'linked', 'open', 'big', 'list', 'bad', 'a/b', '']) {
      expect(loader.load({ connection_id: id, level: 'verified', verified_gates: [] })).toBeNull();
    }
  });
});
