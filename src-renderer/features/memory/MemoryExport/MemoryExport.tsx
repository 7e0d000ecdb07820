import { useId, useState } from 'react';
import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import { transferBusy, type MemoryExportState } from '../../../store/memory-transfer-state.js';

const count = (n: number) => n.toLocaleString('en-US');

function progressText(s: MemoryExportState): string {
  if (s.phase === 'running') return s.total === null ? 'Exporting…' : `Exporting: ${count(s.done)} of ${count(s.total)} memories…`;
  if (s.phase === 'done') return `Saved ${count(s.done)} ${s.done === 1 ? 'memory' : 'memories'} as ${s.fileName ?? 'a bundle'}.`;
  return '';
}

/**
 * Export memory (spec 002 §4.2.3, §6.5): every memory as a bundle the person downloads, the raw
 * record (what was said) included unless they untick it, as `include_raw` defaults to on. The
 * same bundle `silas memory export` writes; recorded in the ledger.
 */
export function MemoryExport() {
  const headingId = useId();
  const [includeRaw, setIncludeRaw] = useState(true);
  const exporting = useCockpit((s) => s.memoryTransfer.exporting);
  const busy = useCockpit((s) => transferBusy(s.memoryTransfer));
  const { exportMemory } = useCockpitActions();
  const progress = progressText(exporting);
  return (
    <section className="memory-transfer" aria-labelledby={headingId}>
      <h2 id={headingId}>Export memory</h2>
      <p className="memory-transfer__lead">
        Saves every memory, with its trust level and whose words it is, as a file you can import here later or into another Silas home. Anyone holding the file can read it.
      </p>
      <div className="memory-transfer__controls">
        <label className="memory-filters__choice">
          <input type="checkbox" checked={includeRaw} onChange={(event) => setIncludeRaw(event.target.checked)} />
          Include the raw record (what was said)
        </label>
        <button type="button" className="button" disabled={busy} onClick={() => exportMemory(includeRaw)}>
          Export memory
        </button>
      </div>
      <p role="status" aria-label="Export progress" className="memory-transfer__progress">
        {progress}
      </p>
      {exporting.phase === 'error' && exporting.error ? (
        <p role="alert" className="notice notice--error">
          Could not export memory: {exporting.error}
        </p>
      ) : null}
    </section>
  );
}
