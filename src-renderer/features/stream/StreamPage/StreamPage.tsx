import { useId, useState } from 'react';
import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import { Composer } from '../Composer/Composer.js';
import { ContextInspector } from '../ContextInspector/ContextInspector.js';
import { Conversation } from '../Conversation/Conversation.js';
import { DecisionChips } from '../DecisionChips/DecisionChips.js';
import { ModelSetup } from '../ModelSetup/ModelSetup.js';
import { TurnMeter } from '../TurnMeter/TurnMeter.js';
import { WorkCard } from '../WorkCard/WorkCard.js';

function WorkItems() {
  const work = useCockpit((s) => s.stream.work);
  const headingId = useId();
  if (work.length === 0) return null;
  return (
    <section aria-labelledby={headingId} className="stream-work">
      <h2 id={headingId} className="stream-side__heading">
        Work
      </h2>
      {work.map((item) => (
        <WorkCard key={item.work_item_id} item={item} />
      ))}
    </section>
  );
}

/** Why the last turn ended without an answer, in the runtime's words. */
function TurnProblem() {
  const error = useCockpit((s) => s.stream.lastTurn?.error ?? null);
  if (error === null) return null;
  return (
    <p role="alert" className="notice notice--error">
      Silas could not finish the last turn: {error}
    </p>
  );
}

/**
 * The Stream surface (spec 002 §0.5.1, §8.2): the conversation with its chips and composer, the
 * work it planned and what the last turn cost beside it, and on demand what its context holds
 * (§5.7 context inspection). Until a model is set up (§1.5) the setup form stands where the
 * composer would be.
 */
export function StreamPage() {
  const status = useCockpit((s) => s.stream.status);
  const openError = useCockpit((s) => s.stream.openError);
  const ready = useCockpit((s) => s.stream.models?.ready === true);
  const setupOpen = useCockpit((s) => s.stream.setup.open);
  const hasMessages = useCockpit((s) => s.stream.messages.length > 0);
  const hasSide = useCockpit((s) => s.stream.work.length > 0 || s.stream.lastTurn !== null);
  const contextShown = useCockpit((s) => s.streamContext.shown);
  const { openModelSetup, showStreamContext, hideStreamContext } = useCockpitActions();
  const contextId = useId();
  // A suggestion chip the person picked: it goes to the composer, never straight to Silas.
  const [suggestion, setSuggestion] = useState<{ text: string; seq: number } | null>(null);
  const suggest = (text: string) => setSuggestion((last) => ({ text, seq: (last?.seq ?? 0) + 1 }));
  const open = status === 'open';

  return (
    <section className="page page--stream" aria-labelledby="page-Stream">
      <header className="stream-header">
        <div>
          <h1 id="page-Stream">Stream</h1>
          <p className="page__lead">Talk to Silas. Anything it plans to run waits for your signature in Review.</p>
        </div>
        <div className="stream-header__actions">
          {open ? (
            <button
              type="button"
              className="button button--quiet"
              aria-expanded={contextShown}
              aria-controls={contextShown ? contextId : undefined}
              onClick={contextShown ? hideStreamContext : showStreamContext}
            >
              {contextShown ? 'Hide context' : 'Show context'}
            </button>
          ) : null}
          {open && ready && !setupOpen ? (
            <button type="button" className="button button--quiet" onClick={openModelSetup}>
              Model settings
            </button>
          ) : null}
        </div>
      </header>
      {openError ? (
        <p role="alert" className="notice notice--error">
          Could not open the conversation: {openError}
        </p>
      ) : null}
      {status === 'opening' ? <p className="stream-waiting">Opening the conversation…</p> : null}
      <div className={open && contextShown ? 'stream-layout stream-layout--context' : 'stream-layout'}>
        <div className="stream-main">
          {open && (ready || hasMessages) ? (
            <>
              <Conversation />
              <TurnProblem />
              <DecisionChips onSuggest={suggest} />
            </>
          ) : null}
          {open && (!ready || setupOpen) ? <ModelSetup /> : null}
          {open && ready ? <Composer suggestion={suggestion} /> : null}
        </div>
        {open && contextShown ? <ContextInspector id={contextId} /> : null}
        {hasSide ? (
          <aside aria-label="Work and usage" className="stream-side">
            <WorkItems />
            <TurnMeter />
          </aside>
        ) : null}
      </div>
    </section>
  );
}
