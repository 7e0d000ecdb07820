import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { FileDiff } from './FileDiff.js';

describe('FileDiff', () => {
  it('is found by the name of its file, and holds the diff as written', () => {
    render(<FileDiff file="/home/ada/policy.yaml" diff={'--- a\n+++ b\n+  x-silas-sandbox:'} />);
    const diff = screen.getByLabelText('Diff of /home/ada/policy.yaml');
    expect(diff.tagName).toBe('PRE');
    expect(diff.textContent).toBe('--- a\n+++ b\n+  x-silas-sandbox:');
    expect(diff.tabIndex).toBe(0);
  });
});
