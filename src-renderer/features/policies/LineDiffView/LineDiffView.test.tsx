import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { LineDiffView } from './LineDiffView.js';

afterEach(cleanup);

describe('LineDiffView', () => {
  it('shows the diff titled by what it compares, with removed and added lines marked', () => {
    render(<LineDiffView title="Version 2 (−) against the editor (+)" before={'a\nmode: enforce\nc\n'} after={'a\nmode: monitor\nc\n'} />);
    const diff = screen.getByLabelText('Version 2 (−) against the editor (+): 1 removed, 1 added');
    expect(diff.tagName).toBe('PRE');
    expect(diff.textContent).toBe('  a\n- mode: enforce\n+ mode: monitor\n  c\n');
    expect(diff.querySelector('.line-diff__line--removed')?.textContent).toBe('- mode: enforce\n');
    expect(diff.querySelector('.line-diff__line--added')?.textContent).toBe('+ mode: monitor\n');
  });

  it('says when the texts are identical', () => {
    render(<LineDiffView title="Version 1" before="a" after="a" />);
    expect(screen.getByLabelText('Version 1: identical').textContent).toBe('  a\n');
  });
});
