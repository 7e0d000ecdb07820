import { countdownText } from '../review-format.js';
import { useNow } from './use-now.js';

/**
 * Time left before the request times out and the agent gets -32005. A `timer` is not live by
 * default, so assistive technology is not interrupted every second.
 */
export function Countdown({ expiresAt }: { expiresAt: string }) {
  const now = useNow(1000);
  const expired = Date.parse(expiresAt) <= now;
  return (
    <p role="timer" aria-label="Time left" className={`countdown${expired ? ' countdown--expired' : ''}`} title={new Date(expiresAt).toLocaleString()}>
      {countdownText(expiresAt, now)}
    </p>
  );
}
