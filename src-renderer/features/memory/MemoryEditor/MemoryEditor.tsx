import { useEffect, useId, useRef } from 'react';
import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';

/**
 * The inline editor of one working memory (`memory.update`). Saved text becomes the owner's words
 * from this session; a refusal keeps the editor open with the runtime's message, so nothing typed
 * is lost. An empty memory is not saved: deleting is the way to forget it.
 */
export function MemoryEditor({ memoryId }: { memoryId: string }) {
  const fieldId = useId();
  const hintId = useId();
  const draft = useCockpit((s) => (s.memory.editing?.memoryId === memoryId ? s.memory.editing.draft : ''));
  const saving = useCockpit((s) => s.memory.pending[memoryId]?.change === 'edit' && s.memory.pending[memoryId]?.phase === 'sending');
  const { editMemoryDraft, saveMemoryEdit, cancelMemoryEdit } = useCockpitActions();
  const field = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    field.current?.focus();
  }, []);
  const empty = draft.trim() === '';
  return (
    <form
      className="memory-editor"
      onSubmit={(event) => {
        event.preventDefault();
        if (!empty) saveMemoryEdit();
      }}
    >
      <label htmlFor={fieldId}>Memory text</label>
      <textarea
        id={fieldId}
        ref={field}
        className="memory-editor__text"
        rows={3}
        maxLength={20_000}
        value={draft}
        aria-invalid={empty}
        aria-describedby={hintId}
        onChange={(event) => editMemoryDraft(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') cancelMemoryEdit();
        }}
      />
      <span id={hintId} className="memory-editor__hint">
        {empty ? 'A memory cannot be empty; delete it instead.' : 'Saved as your words from this session.'}
      </span>
      <div className="memory-editor__actions">
        <button type="submit" className="button button--primary" disabled={empty || saving} aria-busy={saving || undefined}>
          Save
        </button>
        <button type="button" className="button" disabled={saving} onClick={cancelMemoryEdit}>
          Cancel
        </button>
      </div>
    </form>
  );
}
