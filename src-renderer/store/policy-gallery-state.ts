import type { CallResult } from '../../src-shared/contract/index.js';

/*
 * The template gallery of the Policies page (docs/policy-templates.md): the starting policies the
 * runtime offers, and a new policy being made from one. Pure reducers; policy-editor-slice.ts keeps
 * this state under `policyEditor.gallery` and lib/cockpit/policy-gallery.ts does the I/O.
 */

export type PolicyTemplateView = CallResult<'policies.templates'>['templates'][number];

export interface PolicyGalleryState {
  /** The person opened the gallery; its templates are loaded then, once. */
  shown: boolean;
  templates: readonly PolicyTemplateView[];
  status: 'idle' | 'loading' | 'ready' | 'error';
  error: string | null;
  /** A create on its way; one at a time. */
  creating: boolean;
  /** The last create's outcome: what was made, or why not. */
  message: { text: string; error: boolean } | null;
}

export const initialGallery: PolicyGalleryState = { shown: false, templates: [], status: 'idle', error: null, creating: false, message: null };

type G = PolicyGalleryState;

export const galleryShown = (g: G, shown: boolean): G => ({ ...g, shown, message: shown ? g.message : null });
export const templatesLoading = (g: G): G => ({ ...g, status: 'loading', error: null });
export const templatesLoaded = (g: G, templates: readonly PolicyTemplateView[]): G => ({ ...g, templates, status: 'ready', error: null });
export const templatesFailed = (g: G, message: string): G => ({ ...g, status: 'error', error: message });
export const createStarted = (g: G): G => ({ ...g, creating: true, message: null });
export const createDone = (g: G, text: string, error: boolean): G => ({ ...g, creating: false, message: { text, error } });

/** A name the runtime will take for HOME/policies/NAME.yaml (the same rule as metadata.name), or why not. */
export function policyNameProblem(name: string): string | null {
  if (name === '') return 'Give the new policy a name';
  if (name.length > 63) return 'At most 63 characters';
  if (!/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/.test(name)) return 'Lower-case letters, digits and dashes, starting and ending with a letter or digit';
  return null;
}

/** What the person reads after a create: the file, that it is signed, and the suite beside it. */
export function createdMessage(created: CallResult<'policies.create'>, template: PolicyTemplateView | undefined): string {
  const file = created.status.path.split('/').pop() ?? created.status.path;
  const suite = created.suitePath.split('/').pop() ?? created.suitePath;
  const from = template ? ` from "${template.title}"` : '';
  const cases = template ? `, ${template.cases} cases` : '';
  return `Created ${file}${from}, signed as version ${created.version.seq}; its test suite (${suite}${cases}) is beside it`;
}
