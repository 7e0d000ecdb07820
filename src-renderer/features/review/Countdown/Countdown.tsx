import { countdownText } from '../review-format.js';
import { useNow } from './use-now.js';

/**
 * Time left before the request is withdrawn unanswered; `expired` says what that means for this
 * kind of decision. A `timer` is not live by default, so assistive technology is not
 * interrupted every second.
 */
export function Countdown({ expiresAt, expired }: { expiresAt: string; expired: string }) {
  const now = useNow(1000);
  const over = Date.parse(expiresAt) <= now;
  return (
    <p role="timer" aria-label="Time left" className={`countdown${over ? ' countdown--expired' : ''}`} title={new Date(expiresAt).toLocaleString()}>
      {countdownText(expiresAt, now, expired)}
    </p>
  );
}
