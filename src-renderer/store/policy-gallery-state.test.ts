import { describe, expect, it } from 'vitest';
import { POLICY_TEMPLATES } from '../testing/policy-fixtures.js';
import { createdMessage, createDone, createStarted, galleryShown, initialGallery, policyNameProblem, templatesFailed, templatesLoaded, templatesLoading } from './policy-gallery-state.js';

describe('policy gallery state', () => {
  it('takes only the names the runtime takes for HOME/policies/NAME.yaml', () => {
    for (const good of ['a', 'files', 'my-files-2', '0x', 'a'.repeat(63)]) expect(policyNameProblem(good), good).toBeNull();
    expect(policyNameProblem('')).toBe('Give the new policy a name');
    expect(policyNameProblem('a'.repeat(64))).toBe('At most 63 characters');
    for (const bad of ['Files', '-a', 'a-', '../x', 'a/b', 'a.yaml', 'a b', 'é']) expect(policyNameProblem(bad), bad).toMatch(/^Lower-case letters/);
  });

  it('tracks loading, a create and its outcome; hiding clears the outcome', () => {
    let g = templatesLoading(galleryShown(initialGallery, true));
    expect(g).toMatchObject({ shown: true, status: 'loading' });
    expect(templatesFailed(g, 'down')).toMatchObject({ status: 'error', error: 'down' });
    g = templatesLoaded(g, POLICY_TEMPLATES);
    expect(g).toMatchObject({ status: 'ready', templates: POLICY_TEMPLATES });
    g = createStarted(g);
    expect(g.creating).toBe(true);
    g = createDone(g, 'made', false);
    expect(g).toMatchObject({ creating: false, message: { text: 'made', error: false } });
    expect(galleryShown(g, false)).toMatchObject({ shown: false, message: null, templates: POLICY_TEMPLATES });
  });

  it('says which file was made, from which template, and where its suite is', () => {
    const created = {
      status: { path: '/h/policies/x.yaml' },
      version: { seq: 1 },
      suitePath: '/h/policies/x.suite.json',
    } as Parameters<typeof createdMessage>[0];
    expect(createdMessage(created, POLICY_TEMPLATES[1])).toBe('Created x.yaml from "GitHub", signed as version 1; its test suite (x.suite.json, 24 cases) is beside it');
    expect(createdMessage(created, undefined)).toBe('Created x.yaml, signed as version 1; its test suite (x.suite.json) is beside it');
  });
});
