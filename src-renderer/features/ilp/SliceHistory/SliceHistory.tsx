import type { IlpLearnedSlice } from '../../../store/ilp-learned.js';
import { formatLocalTime } from '../../activity/audit-format.js';
import { kindText, statusText, UNTRUSTED_VERSION_TEXT, versionText } from '../learned-format.js';

/**
 * Every version of one learned slice, newest first as the registry lists them: how it came to be
 * (created, updated, rolled back, removed), what became of it, when it was written and decided,
 * its title (the model wrote it: text only), and a warning on a version changed outside Silas,
 * which the runtime neither deploys nor restores.
 */
export function SliceHistory({ slice }: { slice: IlpLearnedSlice }) {
  return (
    <ol className="ilp-slice-history" aria-label={`History of ${slice.slice_id}`}>
      {slice.history.map((v) => (
        <li key={v.id} className={`ilp-slice-history__version${v.trusted ? '' : ' ilp-slice-history__version--untrusted'}`}>
          <p className="ilp-slice-history__facts">
            <strong>{versionText(v.version)}</strong> · {kindText(v.kind)} · {statusText(v.status)} · written <time dateTime={v.created_at}>{formatLocalTime(v.created_at)}</time>
            {v.decided_at !== null ? (
              <>
                {' '}
                · decided <time dateTime={v.decided_at}>{formatLocalTime(v.decided_at)}</time>
              </>
            ) : null}
          </p>
          <p className="ilp-slice-history__title">{v.title}</p>
          {v.trusted ? null : <p className="ilp-slice-history__untrusted ilp-tone--bad">{UNTRUSTED_VERSION_TEXT}</p>}
        </li>
      ))}
    </ol>
  );
}
