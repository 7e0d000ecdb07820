import type { CockpitStore } from '../../store/cockpit-store.js';
import { createdMessage, policyNameProblem } from '../../store/policy-gallery-state.js';
import { describeError } from '../client.js';
import type { Call } from './feature.js';

export interface PolicyGalleryActions {
  /** Shows or hides the template gallery; its templates are loaded the first time it is shown. */
  showPolicyGallery(shown: boolean): void;
  /** Makes HOME/policies/NAME.yaml from a template (signed, its suite beside it), then opens it in the editor. */
  createPolicyFromTemplate(name: string, template: string): void;
}

export interface PolicyGalleryDeps {
  call: Call;
  store: CockpitStore;
  /** Opens a policy in the editor, asking first about an unsaved draft. */
  openPolicy(path: string): Promise<boolean>;
  /** Reloads the list of policies, which now has the new one. */
  reloadList(): void;
}

/** The gallery's side of the policy wiring (docs/policy-editor.md, "Templates"). */
export function connectPolicyGallery({ call, store, openPolicy, reloadList }: PolicyGalleryDeps): { actions: PolicyGalleryActions } {
  const state = () => store.getState();
  const gallery = () => state().policyEditor.gallery;

  function loadTemplates(): void {
    state().policyTemplatesLoading();
    call('policies.templates', {}).then(
      (result) => state().policyTemplatesLoaded(result.templates),
      (error: unknown) => state().policyTemplatesFailed(describeError(error)),
    );
  }

  function showPolicyGallery(shown: boolean): void {
    state().policyGalleryShown(shown);
    if (shown && (gallery().status === 'idle' || gallery().status === 'error')) loadTemplates();
  }

  function createPolicyFromTemplate(name: string, template: string): void {
    if (gallery().creating) return;
    const problem = policyNameProblem(name);
    if (problem) {
      state().policyCreateDone(`${problem}.`, true);
      return;
    }
    state().policyCreateStarted();
    call('policies.create', { name, template }).then(
      (created) => {
        state().policyCreateDone(createdMessage(created, gallery().templates.find((t) => t.id === template)), false);
        reloadList();
        void openPolicy(created.status.path);
      },
      (error: unknown) => state().policyCreateDone(describeError(error), true),
    );
  }

  return { actions: { showPolicyGallery, createPolicyFromTemplate } };
}
