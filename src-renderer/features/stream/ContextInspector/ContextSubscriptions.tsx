import { useId, useState, type FormEvent } from 'react';
import type { SubscriptionView } from '../../../../src-shared/schemas/stream.js';
import type { SubscriptionType } from '../../../../src-shared/silas/context.js';
import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import { tokensText } from '../context-format.js';

/*
 * "Keep in context" (spec 002 §3.5 ContextSubscription, §4.3 subscribe/unsubscribe;
 * docs/silas/context.md "Subscriptions"): the person keeps a file, a file's lines or a memory
 * search in this conversation's context, read again at each turn, and sees each one with whether
 * it is active, what it costs and when it last changed, to deactivate, activate again or remove.
 */

const TYPES: readonly { value: SubscriptionType; label: string; hint: string }[] = [
  { value: 'file', label: 'A file', hint: 'Absolute path, e.g. /home/me/app/auth.py' },
  { value: 'file_lines', label: 'Lines of a file', hint: 'Absolute path, then the first and last line' },
  { value: 'memory_query', label: 'A memory search', hint: 'Words to search your memory for at each turn' },
];

const typeLabel: Record<SubscriptionType, string> = { file: 'file', file_lines: 'lines', memory_query: 'memory search' };

function SubscriptionRow({ sub, busy }: { sub: SubscriptionView; busy: boolean }) {
  const { changeSubscription } = useCockpitActions();
  const state = !sub.active ? 'inactive' : sub.covered_by !== null ? `shown in ${sub.covered_by}` : sub.stale_since !== null ? `stale since turn ${sub.stale_since}` : 'active';
  return (
    <li className={`context-item context-item--${sub.active ? 'external' : 'inactive'}`}>
      <p className="context-item__meta">
        <span className="context-item__kind">{typeLabel[sub.sub_type]}</span>
        <span className="context-item__source">{sub.target}</span>
        <span className="context-item__flag">{state}</span>
        <span>{tokensText(sub.tokens)}</span>
        <span>{sub.last_changed === null ? 'not read yet' : `last changed turn ${sub.last_changed}`}</span>
      </p>
      {sub.note !== null ? <p className="context-item__excerpt">{sub.note}</p> : null}
      <p className="context-subscriptions__actions">
        {sub.active ? (
          <button type="button" className="button button--quiet" disabled={busy} aria-label={`Deactivate ${sub.target}`} onClick={() => changeSubscription(sub.sub_id, 'deactivate')}>
            Deactivate
          </button>
        ) : (
          <button type="button" className="button button--quiet" disabled={busy} aria-label={`Reactivate ${sub.target}`} onClick={() => changeSubscription(sub.sub_id, 'reactivate')}>
            Reactivate
          </button>
        )}
        <button type="button" className="button button--quiet" disabled={busy} aria-label={`Remove ${sub.target}`} onClick={() => changeSubscription(sub.sub_id, 'remove')}>
          Remove
        </button>
      </p>
    </li>
  );
}

/** The form and the list of this conversation's subscriptions. */
export function ContextSubscriptions({ subscriptions }: { subscriptions: readonly SubscriptionView[] }) {
  const headingId = useId();
  const typeId = useId();
  const targetId = useId();
  const fromId = useId();
  const toId = useId();
  const busy = useCockpit((s) => s.streamContext.subscribing);
  const error = useCockpit((s) => s.streamContext.subscriptionError);
  const { keepInContext } = useCockpitActions();
  const [type, setType] = useState<SubscriptionType>('file');
  const [target, setTarget] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const hint = TYPES.find((option) => option.value === type)!.hint;

  async function submit(event: FormEvent) {
    event.preventDefault();
    const text = type === 'file_lines' ? `${target.trim()}:${from.trim()}-${to.trim()}` : target.trim();
    if (await keepInContext({ sub_type: type, target: text })) {
      setTarget('');
      setFrom('');
      setTo('');
    }
  }

  return (
    <section aria-labelledby={headingId} className="context-zone context-subscriptions">
      <h3 id={headingId} className="context-zone__heading">
        Kept in context
      </h3>
      <p className="context-zone__note">Read again at every turn. What a file says is shown to Silas as content from outside, never as your words.</p>
      <form aria-label="Keep in context" className="context-subscriptions__form" onSubmit={(event) => void submit(event)}>
        <label htmlFor={typeId}>Keep</label>
        <select id={typeId} value={type} onChange={(event) => setType(event.target.value as SubscriptionType)}>
          {TYPES.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
        <label htmlFor={targetId}>{type === 'memory_query' ? 'Search for' : 'File path'}</label>
        <input id={targetId} value={target} placeholder={hint} onChange={(event) => setTarget(event.target.value)} />
        {type === 'file_lines' ? (
          <>
            <label htmlFor={fromId}>From line</label>
            <input id={fromId} inputMode="numeric" value={from} onChange={(event) => setFrom(event.target.value)} />
            <label htmlFor={toId}>To line</label>
            <input id={toId} inputMode="numeric" value={to} onChange={(event) => setTo(event.target.value)} />
          </>
        ) : null}
        <button type="submit" className="button" disabled={busy || target.trim() === ''}>
          Keep in context
        </button>
      </form>
      {error !== null ? (
        <p role="alert" className="notice notice--error">
          Not kept: {error}
        </p>
      ) : null}
      {subscriptions.length === 0 ? (
        <p className="context-zone__empty">Nothing is kept in context.</p>
      ) : (
        <ul aria-label="Subscriptions" className="context-zone__items">
          {subscriptions.map((sub) => (
            <SubscriptionRow key={sub.sub_id} sub={sub} busy={busy} />
          ))}
        </ul>
      )}
    </section>
  );
}
