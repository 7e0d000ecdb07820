import { useEffect, useId, useRef, useState } from 'react';
import type { CockpitRevokeResult } from '../../../src-shared/schemas/cockpit-link.js';
import { useCockpit, useCockpitActions } from '../../app/cockpit-context.js';
import { describeError } from '../../lib/client.js';

/** What the button does, said before it is done (docs/control-plane.md "Getting back into the cockpit"). */
export const SIGN_OUT_CONSEQUENCE = 'Signs out every other cockpit tab and link; this one stays. Whoever used them runs `silas open` to get back in.';

/** The answer in the person's words: how many sessions were closed, how many links stopped working. */
export function signedOutText({ credentials, sessions }: CockpitRevokeResult): string {
  if (credentials === 0) return 'There was no other cockpit link; nothing was signed out.';
  const tabs = `${sessions} open ${sessions === 1 ? 'tab' : 'tabs'} signed out`;
  const links = `${credentials} ${credentials === 1 ? 'link' : 'links'} no longer ${credentials === 1 ? 'works' : 'work'}`;
  return `${tabs}; ${links}.`;
}

type Step = { at: 'idle' } | { at: 'asking' } | { at: 'sending' } | { at: 'done'; text: string } | { at: 'failed'; error: string };

/**
 * "Sign out other sessions" beside the runtime summary: a lost or shared cockpit link is revoked
 * from here. Asked first, with the consequence, and focus on "Keep them" so a stray Enter signs
 * nobody out; this session (and the desktop window, which needs no link) stays connected.
 */
export function SignOutOthers() {
  const connected = useCockpit((s) => s.connection.state === 'connected');
  const { revokeSessions } = useCockpitActions();
  const [step, setStep] = useState<Step>({ at: 'idle' });
  const titleId = useId();
  const textId = useId();
  const keep = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (step.at === 'asking') keep.current?.focus();
  }, [step.at]);

  const signOut = () => {
    setStep({ at: 'sending' });
    revokeSessions().then(
      (result) => setStep({ at: 'done', text: signedOutText(result) }),
      (error: unknown) => setStep({ at: 'failed', error: describeError(error) }),
    );
  };

  return (
    <div className="sessions">
      <button type="button" className="button button--quiet" disabled={!connected || step.at === 'sending'} aria-expanded={step.at === 'asking'} onClick={() => setStep({ at: 'asking' })}>
        Sign out other sessions
      </button>
      {step.at === 'asking' ? (
        <div className="sessions__panel notice notice--warn" role="alertdialog" aria-labelledby={titleId} aria-describedby={textId}>
          <h2 id={titleId}>Sign out other sessions?</h2>
          <p id={textId}>{SIGN_OUT_CONSEQUENCE}</p>
          <div className="discard-draft__actions">
            <button type="button" className="button" ref={keep} onClick={() => setStep({ at: 'idle' })}>
              Keep them
            </button>
            <button type="button" className="button button--warn" onClick={signOut}>
              Sign out others
            </button>
          </div>
        </div>
      ) : null}
      {step.at === 'sending' ? (
        <p role="status" className="sessions__panel notice">
          Signing out other sessions…
        </p>
      ) : null}
      {step.at === 'done' ? (
        <p role="status" className="sessions__panel notice">
          {step.text}{' '}
          <button type="button" className="button button--quiet" onClick={() => setStep({ at: 'idle' })}>
            Close
          </button>
        </p>
      ) : null}
      {step.at === 'failed' ? (
        <p role="alert" className="sessions__panel notice notice--error">
          Could not sign out other sessions: {step.error}{' '}
          <button type="button" className="button button--quiet" onClick={() => setStep({ at: 'idle' })}>
            Close
          </button>
        </p>
      ) : null}
    </div>
  );
}
