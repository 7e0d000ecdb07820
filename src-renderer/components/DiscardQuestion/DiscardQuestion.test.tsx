import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { DiscardQuestion } from './DiscardQuestion.js';

afterEach(cleanup);

describe('DiscardQuestion', () => {
  it('names what would be lost, starts on "Keep editing", and answers with the button pressed', () => {
    const answers: boolean[] = [];
    render(<DiscardQuestion title="Unsaved changes" text="Your changes to a.yaml are not saved. Discard them and open b.yaml?" onAnswer={(d) => answers.push(d)} />);
    const dialog = screen.getByRole('alertdialog', { name: 'Unsaved changes', description: 'Your changes to a.yaml are not saved. Discard them and open b.yaml?' });
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Keep editing' }));
    fireEvent.click(within(dialog).getByRole('button', { name: 'Keep editing' }));
    fireEvent.click(within(dialog).getByRole('button', { name: 'Discard changes' }));
    expect(answers).toEqual([false, true]);
  });
});
