import type { GateContext } from '../../../src-shared/silas/gates.js';
import type { ActiveGateSet } from '../gates/runner.js';

/**
 * §5.1.1 gate block handling for the Stream. With no active goal there is only the built-in
 * escalation map: `polite_redirect` answers with its message, `report` (and any name the map does
 * not know, which §5.1.1 treats as `report`) tells the owner the message was stopped. The block
 * itself is audited by the caller with the gate's name and reason.
 */
export interface Escalation {
  name: string;
  message: string;
}

const BUILT_IN: Readonly<Record<string, string>> = {
  polite_redirect: "I can't help with that. How else can I assist you?",
};

export function escalationFor(gateSet: ActiveGateSet, gateName: string): Escalation {
  const gate = gateSet.gates.find((candidate) => candidate.name === gateName);
  const name = gate?.on_block ?? 'report';
  const message = BUILT_IN[name];
  if (message !== undefined) return { name, message };
  return { name: name === 'report' ? 'report' : `report (unknown escalation "${name}")`, message: `The "${gateName}" gate stopped this turn; it was recorded in the activity log.` };
}

/** A gate may rewrite the text it checked (`modified_context`, after allowlist filtering); the rewritten text wins. */
export function gateContextText(context: GateContext, field: string): string | null {
  const value = context[field];
  return typeof value === 'string' ? value : null;
}
