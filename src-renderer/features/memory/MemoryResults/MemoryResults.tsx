import { useCockpit } from '../../../app/cockpit-context.js';
import { MemoryEntry } from '../MemoryEntry/MemoryEntry.js';
import { EMPTY_SEARCH_TEXT, resultsLead } from '../memory-format.js';

/**
 * The memories found: best match first for a search, newest first for an empty box. What was
 * shown stays while the search runs again or fails, with the runtime's message.
 */
export function MemoryResults() {
  const hits = useCockpit((s) => s.memory.results.hits);
  const status = useCockpit((s) => s.memory.results.status);
  const error = useCockpit((s) => s.memory.results.error);
  const query = useCockpit((s) => s.memory.query);
  return (
    <section className="memory-results" aria-label="Memories found">
      {error ? (
        <p role="alert" className="notice notice--error">
          Could not search memory: {error}
        </p>
      ) : null}
      {hits.length === 0 ? (
        <p className="memory-results__empty">{status === 'ready' || status === 'error' ? EMPTY_SEARCH_TEXT : 'Searching memory…'}</p>
      ) : (
        <>
          <p className="memory-results__lead">{resultsLead(query, hits.length)}</p>
          <ul className="memory-list" aria-label="Memories">
            {hits.map((hit) => (
              <MemoryEntry key={hit.item.memory_id} hit={hit} />
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
