import { useId } from 'react';
import type { TaintLevel } from '../../../../src-shared/silas/execution.js';
import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import type { MemoryLane } from '../../../store/memory-state.js';
import { MEMORY_TYPES, TRUST_LEVELS } from '../memory-format.js';

const LANES: readonly { id: MemoryLane; label: string }[] = [
  { id: 'active', label: 'Active' },
  { id: 'raw', label: 'Raw record' },
  { id: 'all', label: 'All' },
];

const TAINTS: readonly { id: TaintLevel; label: string }[] = [
  { id: 'owner', label: 'Signed by you' },
  { id: 'auth', label: 'Your session' },
  { id: 'external', label: 'From outside' },
];

/** The values a checkbox group holds after one box changed, in the group's own order. */
function toggled<T extends string>(all: readonly { id: T }[], chosen: readonly T[], id: T, on: boolean): T[] {
  return all.map((option) => option.id).filter((value) => (value === id ? on : chosen.includes(value)));
}

interface ChoicesProps<T extends string> {
  legend: string;
  options: readonly { id: T; label: string }[];
  chosen: readonly T[];
  onChange(chosen: T[]): void;
}

/** A filter of several values; none ticked means every value. */
function Choices<T extends string>({ legend, options, chosen, onChange }: ChoicesProps<T>) {
  return (
    <fieldset className="memory-filters__group">
      <legend>{legend}</legend>
      {options.map((option) => (
        <label key={option.id} className="memory-filters__choice">
          <input type="checkbox" checked={chosen.includes(option.id)} onChange={(event) => onChange(toggled(options, chosen, option.id, event.target.checked))} />
          {option.label}
        </label>
      ))}
    </fieldset>
  );
}

/**
 * The search box and filters (spec 002 §6): words or a sentence, searched by words, meaning and
 * time together in the active lane, by words in the raw record (what was said, kept for explicit
 * search). The text is searched when submitted; a filter applies at once.
 */
export function MemorySearch() {
  const boxId = useId();
  const laneName = useId();
  const draft = useCockpit((s) => s.memory.draft);
  const lane = useCockpit((s) => s.memory.filters.lane);
  const types = useCockpit((s) => s.memory.filters.types);
  const trust = useCockpit((s) => s.memory.filters.trust);
  const taints = useCockpit((s) => s.memory.filters.taints);
  const since = useCockpit((s) => s.memory.filters.since);
  const until = useCockpit((s) => s.memory.filters.until);
  const { editMemoryQuery, searchMemory, filterMemory } = useCockpitActions();

  return (
    <form
      role="search"
      aria-label="Memory"
      className="memory-search"
      onSubmit={(event) => {
        event.preventDefault();
        searchMemory();
      }}
    >
      <div className="memory-search__box">
        <label htmlFor={boxId}>Search memory</label>
        <input id={boxId} type="search" value={draft} maxLength={2000} placeholder="Words or a sentence; empty lists the newest" onChange={(event) => editMemoryQuery(event.target.value)} />
        <button type="submit" className="button button--primary">
          Search
        </button>
      </div>
      <div className="memory-filters">
        <fieldset className="memory-filters__group">
          <legend>Lane</legend>
          {LANES.map((option) => (
            <label key={option.id} className="memory-filters__choice">
              <input type="radio" name={laneName} checked={lane === option.id} onChange={() => filterMemory({ lane: option.id })} />
              {option.label}
            </label>
          ))}
        </fieldset>
        <Choices legend="Type" options={MEMORY_TYPES} chosen={types} onChange={(chosen) => filterMemory({ types: chosen })} />
        <Choices legend="Trust" options={TRUST_LEVELS} chosen={trust} onChange={(chosen) => filterMemory({ trust: chosen })} />
        <Choices legend="Taint" options={TAINTS} chosen={taints} onChange={(chosen) => filterMemory({ taints: chosen })} />
        <fieldset className="memory-filters__group">
          <legend>Time</legend>
          <label className="memory-filters__choice">
            Since <input type="date" value={since} max={until || undefined} onChange={(event) => filterMemory({ since: event.target.value })} />
          </label>
          <label className="memory-filters__choice">
            Until <input type="date" value={until} min={since || undefined} onChange={(event) => filterMemory({ until: event.target.value })} />
          </label>
        </fieldset>
      </div>
    </form>
  );
}
