import { useId } from 'react';
import type { GovernedServer } from '../../../../src-shared/schemas/servers.js';
import { formatLocalTime } from '../../activity/audit-format.js';

/** A rejected edit of the server's policy: the proxies keep enforcing the last valid one until the file loads again. */
export function PolicyErrorAlert({ error }: { error: NonNullable<GovernedServer['policyError']> }) {
  const listId = useId();
  return (
    <div role="alert" className="policy-error">
      <p className="policy-error__title">
        <strong>Policy edit rejected — the last valid policy stays in force</strong>{' '}
        <span className="policy-error__since">
          since <time dateTime={error.at}>{formatLocalTime(error.at)}</time>
        </span>
      </p>
      {error.errors.length > 0 ? (
        <ul id={listId} className="policy-error__lines" aria-label="Policy errors">
          {error.errors.map((line, i) => (
            <li key={i}>
              <code>{line}</code>
            </li>
          ))}
        </ul>
      ) : null}
      <p className="policy-error__hint">Fix the file and save it: running proxies load a valid edit within 2 seconds.</p>
    </div>
  );
}
