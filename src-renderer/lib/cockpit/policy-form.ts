import type { CallArgs } from '../../../src-shared/contract/index.js';
import type { CockpitStore } from '../../store/cockpit-store.js';
import { describeError } from '../client.js';
import type { Call } from './feature.js';

/** One change of the form view (mode, an allowed tool, a protected path, a tool's action, a standing approval as a rule). */
type PolicyFormChange = CallArgs<'policies.edit'>['change'];

/** Said when the person typed while the runtime was splicing an older draft: their typing wins. */
const DRAFT_MOVED = 'The draft changed while the change was being made; make it again';

export interface PolicyFormActions {
  /** Applies one form change to the draft in the editor (`policies.edit`); nothing is written until "Save and sign". */
  applyPolicyChange(change: PolicyFormChange): void;
  /** Opens `path` in the editor unless it is open, then adds an allow rule for this exact standing approval to its draft. */
  makeRuleFromStanding(path: string, tool: string, args: Record<string, unknown>): void;
}

export interface PolicyFormDeps {
  call: Call;
  store: CockpitStore;
  /** Reads a policy into the editor; resolves true once it is the one open. */
  openPolicy(path: string): Promise<boolean>;
  /** Checks the draft in the editor with the runtime at once. */
  validateNow(): void;
}

/**
 * The form view's side of the policy wiring. The runtime splices the draft's text, so the
 * renderer never re-serialises YAML; the answer replaces the draft as an edit would, then the
 * draft is checked again. Only the newest change lands.
 */
export function connectPolicyForm({ call, store, openPolicy, validateNow }: PolicyFormDeps): { actions: PolicyFormActions; dispose(): void } {
  const state = () => store.getState();
  let request = 0;

  function applyPolicyChange(change: PolicyFormChange): void {
    const open = state().policyEditor.open;
    if (!open) return;
    const { path, draft: text } = open;
    const current = ++request;
    state().policyFormStarted();
    call('policies.edit', { text, change }).then(
      (result) => {
        if (current !== request) return;
        const now = state().policyEditor.open;
        if (now?.path !== path) return;
        if (now.draft !== text) {
          state().policyFormFailed(DRAFT_MOVED);
          return;
        }
        state().policyFormApplied(path, result.text, result.notes);
        validateNow();
      },
      (error: unknown) => current === request && state().policyFormFailed(describeError(error)),
    );
  }

  function makeRuleFromStanding(path: string, tool: string, args: Record<string, unknown>): void {
    const ready = state().policyEditor.open?.path === path ? Promise.resolve(true) : openPolicy(path);
    void ready.then((opened) => {
      if (opened && state().policyEditor.open?.path === path) applyPolicyChange({ kind: 'rule_from_standing', tool, args });
    });
  }

  return {
    actions: { applyPolicyChange, makeRuleFromStanding },
    dispose() {
      request += 1;
    },
  };
}
