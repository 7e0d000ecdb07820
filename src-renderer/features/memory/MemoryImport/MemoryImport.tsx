import { useEffect, useId, useRef, useState } from 'react';
import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import { transferBusy, type MemoryImportMode, type MemoryImportState } from '../../../store/memory-transfer-state.js';

const count = (n: number) => n.toLocaleString('en-US');
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

const MODES: readonly { id: MemoryImportMode; label: string; hint: string }[] = [
  { id: 'merge', label: 'Merge', hint: 'adds new memories and updates those with the same id; keeps the rest' },
  { id: 'replace', label: 'Replace', hint: 'makes memory exactly the bundle: memories it does not hold are removed' },
];

function progressText(s: MemoryImportState): string {
  if (s.phase === 'uploading') return `Uploading ${s.fileName ?? 'the bundle'}: ${mb(s.sent)} of ${mb(s.bytes)} MB…`;
  if (s.phase === 'importing') return `Checking and importing ${s.fileName ?? 'the bundle'}…`;
  if (s.phase === 'done' && s.result) {
    const r = s.result;
    return `Imported ${s.fileName ?? 'the bundle'} (${r.mode}): ${count(r.count)} ${r.count === 1 ? 'memory' : 'memories'}: ${count(r.inserted)} new, ${count(r.updated)} updated, ${count(r.unchanged)} unchanged, ${count(r.removed)} removed.`;
  }
  return '';
}

/**
 * Import memory (spec 002 §4.2.3, §6.5): a bundle the person picks, merged or replacing what it
 * covers (asked first: a replace removes memories). The runtime checks the whole bundle before
 * it writes anything, and refuses it whole, naming the line and the rule, when it is cut,
 * foreign or would change a verified or constitutional memory (§3.8).
 */
export function MemoryImport() {
  const headingId = useId();
  const fileId = useId();
  const modeName = useId();
  const [file, setFile] = useState<File | null>(null);
  const [mode, setMode] = useState<MemoryImportMode>('merge');
  const [asking, setAsking] = useState(false);
  const importing = useCockpit((s) => s.memoryTransfer.importing);
  const busy = useCockpit((s) => transferBusy(s.memoryTransfer));
  const { importMemory } = useCockpitActions();
  const start = () => {
    if (file === null) return;
    if (mode === 'replace') setAsking(true);
    else importMemory(file, mode);
  };
  return (
    <section className="memory-transfer" aria-labelledby={headingId}>
      <h2 id={headingId}>Import memory</h2>
      <p className="memory-transfer__lead">
        Brings in a bundle exported from Silas, keeping each memory&apos;s trust level and whose words it is. Import only bundles you exported or trust as your own. Up to 5 MB here; a larger
        one goes in with <code>silas memory import FILE</code> while the control center is stopped.
      </p>
      <div className="memory-transfer__controls">
        <label htmlFor={fileId}>Bundle file</label>
        <input
          id={fileId}
          type="file"
          accept=".jsonl,.ndjson,application/x-ndjson,application/json"
          disabled={busy}
          onChange={(event) => {
            setFile(event.target.files?.[0] ?? null);
            setAsking(false);
          }}
        />
      </div>
      <fieldset className="memory-filters__group">
        <legend>Mode</legend>
        {MODES.map((option) => (
          <label key={option.id} className="memory-filters__choice">
            <input
              type="radio"
              name={modeName}
              value={option.id}
              checked={mode === option.id}
              onChange={() => {
                setMode(option.id);
                setAsking(false);
              }}
            />
            {option.label}: {option.hint}
          </label>
        ))}
      </fieldset>
      <div className="memory-transfer__controls">
        <button type="button" className="button" disabled={file === null || busy || asking} onClick={start}>
          Import memory
        </button>
      </div>
      {asking && file !== null ? (
        <ReplaceQuestion
          fileName={file.name}
          onAnswer={(yes) => {
            setAsking(false);
            if (yes) importMemory(file, 'replace');
          }}
        />
      ) : null}
      <p role="status" aria-label="Import progress" className="memory-transfer__progress">
        {progressText(importing)}
      </p>
      {importing.phase === 'error' && importing.error ? (
        <p role="alert" className="notice notice--error">
          Could not import {importing.fileName ?? 'the bundle'}: {importing.error}
        </p>
      ) : null}
    </section>
  );
}

/** Asked before a replace; focus goes to "Keep my memory", so a stray Enter removes nothing. */
function ReplaceQuestion({ fileName, onAnswer }: { fileName: string; onAnswer(yes: boolean): void }) {
  const textId = useId();
  const keep = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    keep.current?.focus();
  }, []);
  return (
    <div className="notice notice--warn memory-entry__question" role="alertdialog" aria-label="Replace memory" aria-describedby={textId}>
      <p id={textId}>
        Memory becomes exactly {fileName}: every memory it covers that the file does not hold is removed, and Silas no longer recalls it. This cannot be undone; export first to keep a copy.
      </p>
      <div className="discard-draft__actions">
        <button type="button" className="button" ref={keep} onClick={() => onAnswer(false)}>
          Keep my memory
        </button>
        <button type="button" className="button button--warn" onClick={() => onAnswer(true)}>
          Yes, replace
        </button>
      </div>
    </div>
  );
}
