import { useId, useState, type ReactNode } from 'react';

/**
 * "Details" behind a disclosure button (§0.5.3: details expandable). Open from the start when
 * `initiallyOpen` (high and irreversible risk); the content is only rendered while open.
 */
export function CardDetails({ initiallyOpen, children }: { initiallyOpen: boolean; children: ReactNode }) {
  const [open, setOpen] = useState(initiallyOpen);
  const id = useId();
  return (
    <div className="approval-card__details">
      <button type="button" className="button button--quiet" aria-expanded={open} aria-controls={id} onClick={() => setOpen((was) => !was)}>
        <span className="approval-card__chevron" aria-hidden="true">
          ▸
        </span>{' '}
        Details
      </button>
      <div id={id}>{open ? children : null}</div>
    </div>
  );
}
