import { cleanup, render, screen } from '@testing-library/react';
import type { ComponentType } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { IlpPage } from './ilp/IlpPage.js';

afterEach(cleanup);

const pages: [string, ComponentType, RegExp][] = [
  ['ILP', IlpPage, /ILP composition inspector/],
];

describe('capability pages', () => {
  it.each(pages)('%s has its h1 and names the capability that fills it', (title, Page, capability) => {
    render(<Page />);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(title);
    expect(screen.getByRole('region', { name: title }).textContent).toMatch(capability);
  });
});
