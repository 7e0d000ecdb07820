import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { CardOrigin, DecisionCard as Card } from '../../../src-shared/schemas/review.js';
import { planCard, toolCallCard } from '../../testing/review-fixtures.js';
import { DecisionCard } from './DecisionCard/DecisionCard.js';
import { UpNext } from './UpNext/UpNext.js';

afterEach(cleanup);

/*
 * Review by source (docs/review.md "Sources"): a flood is one line with "N more from this
 * source", the person's own servers come first, and every card says who asked, through which
 * channel and with what taint; a requester's own words are quoted as its words.
 */

const flooder = (n: number): CardOrigin => ({ channel: 'local_requester', sourceId: `session-flood-${n}`, requester: `a local requester claiming to be the proxy of server "evil" (session f${n})`, taint: 'external', governed: false });
const governed: CardOrigin = { channel: 'local_requester', sourceId: 'session-real', requester: 'a local requester claiming to be the proxy of server "files" (session r1)', taint: 'external', governed: true };
const mine: CardOrigin = { channel: 'cockpit', sourceId: 'stream:scope-1', requester: 'your Stream conversation in the cockpit', taint: 'auth', governed: false };
const local: CardOrigin = { channel: 'local_conversation', sourceId: 'stream:scope-2', requester: 'a local process over the local socket (unsigned messages, not shown as yours)', taint: 'external', governed: false };

const withOrigin = <C extends Card>(card: C, origin: CardOrigin): C => ({ ...card, origin });
const fact = (el: HTMLElement, term: string) => within(el).getByText(term, { selector: 'dt' }).nextElementSibling as HTMLElement;

describe('Up next, grouped by source', () => {
  it('shows one line per source with "N more from this source", the governed server before an older flood', () => {
    const flood = Array.from({ length: 40 }, (_, i) => withOrigin(toolCallCard(i + 1, { details: { server: 'evil' } }), flooder(1)));
    const real = withOrigin(toolCallCard(100, { details: { server: 'files', tool: 'write_file' } }), governed);
    render(<UpNext cards={[...flood, real]} />);
    const items = within(screen.getByRole('list', { name: 'Up next' })).getAllByRole('listitem');
    expect(items).toHaveLength(2);
    expect(items[0]!.textContent).toContain('write_file on files wants to run');
    expect(items[0]!.textContent).not.toContain('more from this source');
    expect(items[1]!.textContent).toContain('read_file_1 on evil wants to run');
    expect(items[1]!.textContent).toContain('39 more from this source');
    expect(items[1]!.textContent).toContain('via a local-socket requester');
    expect(items[1]!.textContent).toContain('external — not from you');
  });

  it('puts the person\'s own conversation first, then sources by their oldest card', () => {
    render(<UpNext cards={[withOrigin(toolCallCard(1), flooder(1)), withOrigin(toolCallCard(2), flooder(2)), withOrigin(planCard(9), mine)]} />);
    const items = within(screen.getByRole('list', { name: 'Up next' })).getAllByRole('listitem');
    expect(items.map((item) => item.textContent?.split(' · ')[0])).toEqual([
      expect.stringContaining('your Stream conversation in the cockpit'),
      expect.stringContaining('(session f1)'),
      expect.stringContaining('(session f2)'),
    ]);
  });
});

describe('the active card says who asked', () => {
  it('attributes a local requester\'s reason to it, with channel and taint', () => {
    const card = withOrigin(toolCallCard(1, { rationale: 'The owner already approved this, click Allow' }), governed);
    render(<DecisionCard card={card} busy={false} error={null} onDecide={() => undefined} />);
    const article = screen.getByRole('article');
    expect(fact(article, 'From').textContent).toBe('a local requester claiming to be the proxy of server "files" (session r1) · via a local-socket requester · external — not from you');
    expect(fact(article, 'Why').textContent).toBe('a local requester claiming to be the proxy of server "files" (session r1) says: “The owner already approved this, click Allow”');
  });

  it('tells a plan from a local-socket conversation apart from the person\'s own', () => {
    render(<DecisionCard card={withOrigin(planCard(1), local)} busy={false} error={null} onDecide={() => undefined} />);
    const theirs = screen.getByRole('article');
    expect(fact(theirs, 'From').textContent).toContain('via a conversation over the local socket · external — not from you');
    expect(fact(theirs, 'Why').textContent).toMatch(/^a local process over the local socket \(unsigned messages, not shown as yours\) says: “/);
    cleanup();
    render(<DecisionCard card={withOrigin(planCard(1), mine)} busy={false} error={null} onDecide={() => undefined} />);
    const own = screen.getByRole('article');
    expect(fact(own, 'From').textContent).toBe('your Stream conversation in the cockpit · via your cockpit · from your session');
    expect(fact(own, 'Why').textContent).not.toContain('says:');
  });
});
