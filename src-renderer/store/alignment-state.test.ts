import { describe, expect, it } from 'vitest';
import { cardView, FILES, SILAS, seriesOf, traceView, violation } from '../testing/alignment-fixtures.js';
import * as r from './alignment-state.js';

const shown = (agentId = FILES) => r.agentSelected(r.initialAlignment, agentId);
const withCard = () => r.cardLoaded(shown(), FILES, cardView());

describe('alignment reducers', () => {
  it('keeps the agents shown while a reload runs, and says why one failed', () => {
    const loaded = r.agentsLoaded(r.agentsLoading(r.initialAlignment), []);
    expect(r.agentsLoading(r.initialAlignment).agentsStatus).toBe('loading');
    expect(r.agentsLoading(loaded).agentsStatus).toBe('ready');
    expect(r.agentsFailed(loaded, 'gone')).toMatchObject({ agentsStatus: 'ready', agentsError: 'gone' });
    expect(r.agentsFailed(r.initialAlignment, 'gone')).toMatchObject({ agentsStatus: 'error', agentsError: 'gone' });
  });

  it('starts another agent with empty series, violations, inspector and card', () => {
    let s = shown();
    s = r.seriesAppended(s, seriesOf({ count: 3 }));
    s = r.violationsLoaded(s, FILES, [violation('tr-3')]);
    s = r.traceLoaded(r.traceOpening(s, 'tr-3'), 'tr-3', traceView('tr-3'));
    s = r.cardLoaded(s, FILES, cardView());
    expect(r.agentSelected(s, FILES)).toBe(s);
    const other = r.agentSelected(s, SILAS);
    expect(other).toMatchObject({ selected: SILAS, series: null, violations: [], inspector: { traceId: null, view: null } });
    expect(other.card).toMatchObject({ status: 'idle', inForce: null, draft: '' });
  });

  it('appends traces only for the agent shown; an answer for another agent is dropped', () => {
    let s = r.seriesAppended(shown(), seriesOf({ count: 2 }));
    s = r.seriesAppended(s, seriesOf({ fromSeq: 3, count: 1 }));
    expect(s.series?.seq).toEqual([1, 2, 3]);
    expect(s.seriesStatus).toBe('ready');
    expect(r.seriesAppended(s, seriesOf({ agentId: SILAS, count: 5 }))).toBe(s);
    expect(r.seriesFailed(s, SILAS, 'late')).toBe(s);
    expect(r.seriesFailed(s, FILES, 'gone')).toMatchObject({ seriesStatus: 'ready', seriesError: 'gone' });
    expect(r.violationsLoaded(s, SILAS, [violation('x')]).violations).toEqual([]);
  });

  it('lands only the trace last asked for in the inspector', () => {
    const s = r.traceOpening(shown(), 'tr-2');
    expect(r.traceLoaded(s, 'tr-1', traceView('tr-1'))).toBe(s);
    expect(r.traceLoaded(s, 'tr-2', traceView('tr-2')).inspector).toMatchObject({ traceId: 'tr-2', status: 'ready' });
    expect(r.traceFailed(s, 'tr-2', 'not found').inspector).toMatchObject({ status: 'error', error: 'not found', view: null });
    expect(r.traceClosed(s).inspector.traceId).toBeNull();
  });

  it('puts the card in force in the editor as indented JSON, checked', () => {
    const s = withCard();
    expect(s.card.status).toBe('ready');
    expect(s.card.draft).toBe(r.cardText(cardView().card));
    expect(s.card.draft).toContain('\n  "card_id": "ac-mcp-files-1"');
    expect(s.card.savedText).toBe(s.card.draft);
    expect(r.currentCardValidation(s.card)).toMatchObject({ ok: true, problems: [] });
    expect(r.cardLoaded(shown(SILAS), FILES, cardView()).card.status).toBe('idle');
  });

  it('keeps a draft being edited when the card in force is read again, and replaces an unchanged one', () => {
    const edited = r.cardDraftEdited(withCard(), '{"edited": true}');
    const newer = cardView({ source: 'edited', card: { ...cardView().card as object, card_id: 'ac-2' } });
    const reread = r.cardLoaded(edited, FILES, newer);
    expect(reread.card.draft).toBe('{"edited": true}');
    expect(reread.card.inForce?.source).toBe('edited');
    const unchanged = r.cardLoaded(withCard(), FILES, newer);
    expect(unchanged.card.draft).toContain('"ac-2"');
    const discarded = r.cardDraftDiscarded(edited);
    expect(discarded.card.draft).toBe(edited.card.savedText);
    expect(discarded.card.save.phase).toBe('idle');
  });

  it('says why "Save and sign" is disabled, in order', () => {
    expect(r.cardSaveBlockReason(shown().card)).toBe('The card in force is not loaded yet');
    const s = withCard();
    expect(r.cardSaveBlockReason(s.card)).toBe('No changes to save');
    const edited = r.cardDraftEdited(s, '{"card_id": "ac-1"}');
    expect(r.cardSaveBlockReason(edited.card)).toBe('Checking the card…');
    const twoProblems = r.cardValidated(edited, FILES, { text: '{"card_id": "ac-1"}', ok: false, problems: [{ path: 'a', message: 'x' }, { path: 'b', message: 'y' }] });
    expect(r.cardSaveBlockReason(twoProblems.card)).toBe('Fix the 2 problems first');
    const stale = r.cardDraftEdited(twoProblems, '{"card_id": "ac-2"}');
    expect(r.currentCardValidation(stale.card)).toBeNull();
    const valid = r.cardValidated(stale, FILES, { text: '{"card_id": "ac-2"}', ok: true, problems: [] });
    expect(r.cardSaveBlockReason(valid.card)).toBeNull();
    expect(r.cardSaveBlockReason(r.cardSaving(valid).card)).toBe('Saving…');
  });

  it('makes a saved draft the baseline and says which card is now in force; a refusal keeps the draft', () => {
    const edited = r.cardValidated(r.cardDraftEdited(withCard(), 'NEW'), FILES, { text: 'NEW', ok: true, problems: [] });
    const saved = r.cardSaved(r.cardSaving(edited), FILES, 'NEW', 'ac-2');
    expect(saved.card).toMatchObject({ savedText: 'NEW', draft: 'NEW', save: { phase: 'saved', message: 'Saved and signed: card ac-2 is now in force.' } });
    const refused = r.cardSaveFailed(r.cardSaving(edited), FILES, 'card_id: taken');
    expect(refused.card).toMatchObject({ draft: 'NEW', save: { phase: 'error', message: 'card_id: taken' } });
    expect(r.cardDraftEdited(refused, 'NEWER').card.save.phase).toBe('idle');
  });
});
