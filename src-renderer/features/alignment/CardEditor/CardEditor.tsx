import { useId } from 'react';
import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import { cardSaveBlockReason, currentCardValidation } from '../../../store/alignment-state.js';
import { cardProblemText, cardSourceText, signatureText, signatureTone } from '../alignment-format.js';

/** The accessible name of the card's text (a stable locator for end-to-end tests). */
export const CARD_EDITOR_LABEL = 'Card JSON';

/**
 * The selected agent's Alignment Card: where the card in force came from and its signature, its
 * JSON to edit (checked by the runtime as the person types, every problem at its JSON path), and
 * "Save and sign", disabled with its reason while anything blocks it.
 */
export function CardEditor() {
  const headingId = useId();
  const reasonId = useId();
  const card = useCockpit((s) => s.alignment.card);
  const { editCard, saveCard, discardCardDraft, useDerivedCard } = useCockpitActions();
  const reason = cardSaveBlockReason(card);
  const validation = currentCardValidation(card);
  const inForce = card.inForce;
  const changed = card.draft !== card.savedText;

  return (
    <section className="card-editor" aria-labelledby={headingId}>
      <h2 id={headingId}>Alignment card</h2>
      {card.error ? (
        <p role="alert" className="notice notice--error">
          Could not load the card: {card.error}
        </p>
      ) : null}
      {inForce === null ? (
        <p className="card-editor__loading">{card.status === 'error' ? 'No card to edit.' : 'Loading the card…'}</p>
      ) : (
        <>
          {inForce.refused ? (
            <div role="alert" className="notice notice--error card-editor__refused">
              <p>
                <strong>Card refused — every action counts as a violation until you save or re-derive a card.</strong> {inForce.refused}
              </p>
              <button type="button" className="button" onClick={useDerivedCard}>
                Use the card derived from the signed policy
              </button>
            </div>
          ) : null}
          <dl className="card-editor__facts">
            <div>
              <dt>In force</dt>
              <dd>
                <code>{typeof inForce.card === 'object' && inForce.card !== null && 'card_id' in inForce.card ? String(inForce.card.card_id) : '—'}</code>
              </dd>
            </div>
            <div>
              <dt>Source</dt>
              <dd>{cardSourceText(inForce.source)}</dd>
            </div>
            <div>
              <dt>Signature</dt>
              <dd className={`alignment-tone alignment-tone--${signatureTone(inForce.signature)}`}>{signatureText(inForce.signature)}</dd>
            </div>
          </dl>
          <p className="card-editor__lead">
            Edit the card as JSON. A saved card is signed with your owner key and put in force at once; give it a new <code>card_id</code>. A card that does
            not validate is never put in force.
          </p>
          <textarea
            className="card-editor__text"
            aria-label={CARD_EDITOR_LABEL}
            spellCheck={false}
            autoCapitalize="off"
            autoComplete="off"
            rows={22}
            value={card.draft}
            onChange={(event) => editCard(event.target.value)}
          />
          <div className="card-editor__check" role="status" aria-label="Card check">
            {!changed ? null : validation === null ? (
              <p>Checking the card…</p>
            ) : validation.problems.length === 0 ? (
              <p className="alignment-tone alignment-tone--ok">The card validates.</p>
            ) : (
              <ul className="card-editor__problems" aria-label="Card problems">
                {validation.problems.map((problem, index) => (
                  <li key={`${index}-${problem.path}`}>{cardProblemText(problem)}</li>
                ))}
              </ul>
            )}
            {card.validateError ? <p className="notice notice--error">Could not check the card: {card.validateError}</p> : null}
          </div>
          <div className="card-editor__save">
            <button type="button" className="button button--primary" disabled={reason !== null} aria-describedby={reason !== null ? reasonId : undefined} onClick={saveCard}>
              Save and sign
            </button>
            {changed && card.save.phase !== 'saving' ? (
              <button type="button" className="button" onClick={discardCardDraft}>
                Discard changes
              </button>
            ) : null}
            {reason !== null ? (
              <span id={reasonId} className="card-editor__reason">
                {reason}
              </span>
            ) : null}
          </div>
          <p role="status" className="card-editor__status">
            {card.save.phase === 'saved' && card.save.message ? card.save.message : ''}
          </p>
          {card.save.phase === 'error' && card.save.message ? (
            <p role="alert" className="notice notice--error">
              The card was not saved: {card.save.message}
            </p>
          ) : null}
        </>
      )}
    </section>
  );
}
