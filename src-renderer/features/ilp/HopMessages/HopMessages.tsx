import { useId } from 'react';
import type { IlpComposition } from '../../../store/ilp-state.js';
import { statusText } from '../ilp-format.js';

export interface HopMessagesProps {
  hops: IlpComposition['hop_list'];
}

/**
 * Each hop's raw ILP request and response as they crossed the codec (spec 004 §5), closed until
 * opened. An agent's answer is its own words, maybe hostile: it is shown as text in <pre>, never
 * parsed or rendered as HTML (React escapes it).
 */
export function HopMessages({ hops }: HopMessagesProps) {
  const headingId = useId();
  return (
    <section className="ilp-messages" aria-labelledby={headingId}>
      <h2 id={headingId}>Messages</h2>
      {hops.map((hop) => (
        <details key={hop.id} className="ilp-message">
          <summary>
            {hop.agent} · {hop.method} {hop.path} · {statusText(hop.status)} · {hop.duration_ms.toLocaleString('en-US')} ms
          </summary>
          <h3>Request</h3>
          <pre className="ilp-message__text" aria-label={`Request to ${hop.agent}`}>
            {hop.request_text}
          </pre>
          <h3>Response</h3>
          <pre className="ilp-message__text" aria-label={`Response from ${hop.agent}`}>
            {hop.response_text}
          </pre>
        </details>
      ))}
    </section>
  );
}
