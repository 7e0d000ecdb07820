import { useId } from 'react';
import { FileDiff } from '../FileDiff/FileDiff.js';
import type { ClientWrapPlanView } from '../../../../src-shared/schemas/clients.js';

type SandboxProfile = ClientWrapPlanView['sandboxProfiles'][number];

/** A note's first line is prose; the lines after it, when any, are YAML to copy as they are. */
function Note({ note }: { note: string }) {
  const [first, ...rest] = note.split('\n');
  return (
    <li>
      {first}
      {rest.length > 0 ? (
        // Scrollable, so reachable by keyboard like the diffs.
        <pre className="wrap-flow__diff" tabIndex={0} aria-label={`To add by hand: ${first}`}>
          <code>{rest.join('\n')}</code>
        </pre>
      ) : null}
    </li>
  );
}

function Profile({ profile }: { profile: SandboxProfile }) {
  return (
    <li className="wrap-flow__profile">
      <p>
        <strong>{profile.server}</strong>
        {profile.diff ? (
          <>
            {' '}
            gets a starting <code>x-silas-sandbox</code> in its policy <code>{profile.file}</code>
          </>
        ) : (
          <>
            : its policy <code>{profile.file}</code> is not changed
          </>
        )}
      </p>
      {profile.notes.length > 0 ? (
        <ul className="wrap-flow__list" aria-label={`Notes on the sandbox of ${profile.server}`}>
          {profile.notes.map((note, i) => (
            <Note key={i} note={note} />
          ))}
        </ul>
      ) : null}
      {profile.diff ? <FileDiff file={profile.file} diff={profile.diff} /> : null}
    </li>
  );
}

/**
 * What each wrapped server will be allowed to reach in its sandbox: a server silas recognises
 * gets a starting profile, added to its own policy by Apply, so the person reads the grants
 * before accepting them; anything silas would not write itself is a note to act on.
 */
export function SandboxProfiles({ profiles }: { profiles: readonly SandboxProfile[] }) {
  const headingId = useId();
  if (profiles.length === 0) return null;
  return (
    <section className="wrap-flow__profiles" aria-labelledby={headingId}>
      <h5 id={headingId}>Sandbox profiles</h5>
      <p className="wrap-flow__hint">A wrapped server runs in a sandbox that shows it only what its policy grants: no files, network or environment otherwise.</p>
      <ul className="wrap-flow__list">
        {profiles.map((profile) => (
          <Profile key={profile.server} profile={profile} />
        ))}
      </ul>
    </section>
  );
}
