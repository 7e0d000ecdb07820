import { useEffect, useId, useRef, useState, type MouseEvent } from 'react';
import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import { TaintBadge } from '../../../components/TaintBadge/TaintBadge.js';
import { isPlainClick } from '../../../lib/plain-click.js';
import { routeHash } from '../../../lib/routes.js';
import { memoryControls, type MemoryChange, type MemoryHit } from '../../../store/memory-state.js';
import { formatLocalTime } from '../../activity/audit-format.js';
import { Shown } from '../../review/DecisionCard/KindDetails.js';
import { MemoryEditor } from '../MemoryEditor/MemoryEditor.js';
import { lockedText, memoryTypeLabel, PROMOTION_WAITING_TEXT, recalledText, trustLabel, viaText } from '../memory-format.js';

const FAILED: Record<MemoryChange, string> = { edit: 'Could not save the edit', delete: 'Could not delete the memory', promote: 'Could not ask to verify' };

type Asking = 'delete' | 'promote' | null;

/**
 * One memory found (spec 002 §3.8): its content as text (invisible characters spelled out), type,
 * trust, whose words it is (text from outside marked so), when it was stored, how often recalled,
 * and how the search found it. Working memory offers Edit, Delete (asked first) and Ask to
 * verify (a card in Review); verified and constitutional memory say why they offer none.
 */
export function MemoryEntry({ hit }: { hit: MemoryHit }) {
  const { item } = hit;
  const id = item.memory_id;
  const editing = useCockpit((s) => s.memory.editing?.memoryId === id);
  const pending = useCockpit((s) => s.memory.pending[id] ?? null);
  const { startMemoryEdit, deleteMemory, promoteMemory } = useCockpitActions();
  const [asking, setAsking] = useState<Asking>(null);
  const controls = memoryControls(item);
  const locked = lockedText(item.trust_level);
  const sending = pending?.phase === 'sending';
  const via = viaText(hit.via);

  return (
    <li className={`memory-entry memory-entry--${item.taint}`}>
      {editing ? (
        <MemoryEditor memoryId={id} />
      ) : (
        <p className="memory-entry__content">
          <Shown text={item.content} />
        </p>
      )}
      <p className="memory-entry__meta">
        <span className="memory-entry__type">{memoryTypeLabel(item.memory_type)}</span>
        <span className={`trust-badge trust-badge--${item.trust_level}`}>{trustLabel(item.trust_level)}</span>
        <TaintBadge taint={item.taint} />
        {item.reingestion_tier === 'low_reingestion' ? <span className="memory-entry__raw">raw record</span> : null}
        <time dateTime={item.created_at}>{formatLocalTime(item.created_at)}</time>
        <span>{recalledText(item.access_count)}</span>
        {via ? <span className="memory-entry__via">{via}</span> : null}
      </p>
      {hit.promotionPending ? <PromotionWaiting /> : null}
      {locked !== null ? (
        <p className="memory-entry__locked">{locked}</p>
      ) : editing ? null : (
        <div className="memory-entry__actions">
          {controls.edit ? (
            <button type="button" className="button" disabled={sending} onClick={() => startMemoryEdit(id)}>
              Edit
            </button>
          ) : null}
          {controls.delete ? (
            <button type="button" className="button button--warn" disabled={sending} aria-expanded={asking === 'delete'} onClick={() => setAsking('delete')}>
              Delete
            </button>
          ) : null}
          {controls.promote && !hit.promotionPending ? (
            <button type="button" className="button" disabled={sending} aria-expanded={asking === 'promote'} onClick={() => setAsking('promote')}>
              Ask to verify…
            </button>
          ) : null}
        </div>
      )}
      {asking === 'delete' ? (
        <DeleteQuestion
          onAnswer={(yes) => {
            setAsking(null);
            if (yes) deleteMemory(id);
          }}
        />
      ) : null}
      {asking === 'promote' && !hit.promotionPending ? (
        <PromoteForm
          onAnswer={(reason) => {
            setAsking(null);
            if (reason !== null) promoteMemory(id, reason);
          }}
        />
      ) : null}
      {pending?.phase === 'error' && pending.error ? (
        <p role="alert" className="notice notice--error">
          {FAILED[pending.change]}: {pending.error}
        </p>
      ) : null}
    </li>
  );
}

/** A promotion waits for the owner's signature; the link opens Review. */
function PromotionWaiting() {
  const { navigate } = useCockpitActions();
  const openReview = (event: MouseEvent<HTMLAnchorElement>) => {
    if (!isPlainClick(event)) return;
    event.preventDefault();
    navigate('review');
  };
  return (
    <p className="memory-entry__waiting">
      {PROMOTION_WAITING_TEXT}:{' '}
      <a href={routeHash('review')} onClick={openReview}>
        Open Review
      </a>
    </p>
  );
}

/** Asked before a memory is forgotten; focus goes to "Keep it", so a stray Enter deletes nothing. */
function DeleteQuestion({ onAnswer }: { onAnswer(yes: boolean): void }) {
  const textId = useId();
  const keep = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    keep.current?.focus();
  }, []);
  return (
    <div className="notice notice--warn memory-entry__question" role="alertdialog" aria-label="Delete this memory" aria-describedby={textId}>
      <p id={textId}>Silas forgets it: it is no longer recalled in any conversation. This cannot be undone.</p>
      <div className="discard-draft__actions">
        <button type="button" className="button" ref={keep} onClick={() => onAnswer(false)}>
          Keep it
        </button>
        <button type="button" className="button button--warn" onClick={() => onAnswer(true)}>
          Yes, delete
        </button>
      </div>
    </div>
  );
}

/** Before the card is made: what verifying means, and why (optional, shown on the card). */
function PromoteForm({ onAnswer }: { onAnswer(reason: string | null): void }) {
  const fieldId = useId();
  const [reason, setReason] = useState('');
  return (
    <form
      className="notice memory-entry__question"
      aria-label="Ask to verify"
      onSubmit={(event) => {
        event.preventDefault();
        onAnswer(reason);
      }}
    >
      <p>
        A card waits in Review for your signature. Once verified, Silas recalls this memory as confirmed by you, and only you can change or delete it.
      </p>
      <label htmlFor={fieldId}>Why (optional, shown on the card)</label>
      <input id={fieldId} type="text" maxLength={1000} value={reason} onChange={(event) => setReason(event.target.value)} />
      <div className="discard-draft__actions">
        <button type="submit" className="button button--primary">
          Send to Review
        </button>
        <button type="button" className="button" onClick={() => onAnswer(null)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
