import { countdownText } from '../review-format.js';
import { useNow } from './use-now.js';

/**
 * Time left before the request times out (a tool call then gets -32005; `silas run` a timeout).
 * `text` says it in the card's own words. A `timer` is not live by default, so assistive
 * technology is not interrupted every second.
 */
export function Countdown({ expiresAt, text = countdownText }: { expiresAt: string; text?: (expiresAt: string, now: number) => string }) {
  const now = useNow(1000);
  const expired = Date.parse(expiresAt) <= now;
  return (
    <p role="timer" aria-label="Time left" className={`countdown${expired ? ' countdown--expired' : ''}`} title={new Date(expiresAt).toLocaleString()}>
      {text(expiresAt, now)}
    </p>
  );
}
