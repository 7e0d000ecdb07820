import { useCockpit } from '../../../app/cockpit-context.js';
import { countsText, semanticText } from '../memory-format.js';

/**
 * How much memory holds and whether recall by meaning is ready (`memory.status`): until it is,
 * recall is by words and time only, which the person should know when a search finds less.
 */
export function MemoryStatusLine() {
  const value = useCockpit((s) => s.memory.status.value);
  const error = useCockpit((s) => s.memory.status.error);
  const off = value?.semantic.state === 'unavailable';
  return (
    <>
      <p role="status" aria-label="Memory status" className="memory-status">
        {value === null ? (
          'Reading what memory holds…'
        ) : (
          <>
            <span className="memory-status__counts">{countsText(value)}.</span>{' '}
            <span className={`memory-status__semantic${off ? ' memory-status__semantic--off' : ''}`}>{semanticText(value.semantic)}</span>
          </>
        )}
      </p>
      {error ? (
        <p role="alert" className="notice notice--error">
          Could not read what memory holds: {error}
        </p>
      ) : null}
    </>
  );
}
