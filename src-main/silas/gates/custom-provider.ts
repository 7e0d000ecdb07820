import type { Gate, GateContext } from '../../../src-shared/silas/gates.js';
import { GateConfigError, type GateCheckProvider, type GateVerdict, type PreparedGateCheck } from './provider.js';

/**
 * The `custom` provider (spec 002 §3.4 "Python callable"): in-process checks registered by name
 * at composition time. A plan can only name a check that the runtime registered, never supply code.
 */

export type CustomGateCheck = (gate: Gate, context: GateContext) => Promise<GateVerdict> | GateVerdict;

export class CustomGateProvider implements GateCheckProvider {
  readonly name = 'custom' as const;
  private readonly checks: ReadonlyMap<string, CustomGateCheck>;

  constructor(checks: Readonly<Record<string, CustomGateCheck>>) {
    this.checks = new Map(Object.entries(checks));
  }

  prepare(gate: Gate): PreparedGateCheck {
    const fn = gate.check === null ? undefined : this.checks.get(gate.check);
    if (fn === undefined) {
      const known = [...this.checks.keys()].join(', ') || '(none registered)';
      throw new GateConfigError(gate.name, 'check', `unknown custom check "${gate.check ?? ''}"; registered: ${known}`);
    }
    return (context) => fn(gate, context);
  }
}
