import { autocompletion, completionKeymap, type CompletionContext, type CompletionResult } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { yaml } from '@codemirror/lang-yaml';
import { bracketMatching, HighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { diagnosticCount, lintGutter, lintKeymap, setDiagnostics, type Diagnostic } from '@codemirror/lint';
import { Annotation, EditorState } from '@codemirror/state';
import { drawSelection, EditorView, highlightActiveLineGutter, hoverTooltip, keymap, lineNumbers, type Tooltip } from '@codemirror/view';
import { tags } from '@lezer/highlight';
import type { PolicyDiagnostic } from '../../../store/policy-editor-state.js';
import { diagnosticRange } from '../editor-positions.js';
import { keyContextAt, policyKeysAt } from '../policy-completion.js';
import { policyFieldAt, valueContextAt, type PolicyFieldDoc } from '../policy-hover.js';

/*
 * CodeMirror 6 for the policy editor, loaded with a dynamic import() so that neither it nor the
 * AgentPolicy schema (for key completion) weighs on the cockpit's first load.
 *
 * The view lives in a shadow root: CodeMirror injects its styles at run time, and under the
 * cockpit's `style-src 'self'` a <style> element is refused, while a constructed stylesheet
 * (which style-mod adopts in a shadow root) is not. Colours are the cockpit's CSS variables,
 * which inherit into the shadow tree, so dark mode follows.
 */

export interface PolicyEditorHandle {
  /** Replaces the whole text (a file read, a restore); not reported back through onChange. */
  setText(text: string): void;
  /** Underlines the runtime's diagnostics for the current text; returns how many the editor now marks. */
  setDiagnostics(diagnostics: readonly PolicyDiagnostic[]): number;
  destroy(): void;
}

export interface PolicyEditorOptions {
  text: string;
  /** The accessible name of the editable content. */
  label: string;
  onChange(text: string): void;
}

/** Marks a change made from outside (setText), so that it is not reported as the person's edit. */
const fromOutside = Annotation.define<boolean>();

const highlightStyle = HighlightStyle.define([
  { tag: tags.definition(tags.propertyName), color: 'var(--accent)' },
  { tag: [tags.string, tags.special(tags.string)], color: 'var(--ok)' },
  { tag: [tags.keyword, tags.attributeValue, tags.meta], color: 'var(--warn)' },
  { tag: [tags.labelName, tags.typeName], color: 'var(--bad)' },
  { tag: tags.lineComment, color: 'var(--muted)', fontStyle: 'italic' },
]);

const theme = EditorView.theme({
  '&': { color: 'var(--text)', backgroundColor: 'var(--surface)', border: '1px solid var(--border)', borderRadius: '6px', fontSize: '12px', maxHeight: '60vh' },
  '&.cm-focused': { outline: '2px solid var(--focus)', outlineOffset: '1px' },
  '.cm-scroller': { fontFamily: 'var(--mono)', overflow: 'auto', lineHeight: '1.5' },
  '.cm-content, .cm-gutter': { minHeight: '240px' },
  '.cm-content': { caretColor: 'var(--text)' },
  '&.cm-focused .cm-cursor': { borderLeftColor: 'var(--text)' },
  '&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground': { backgroundColor: 'var(--accent-soft)' },
  '.cm-gutters': { backgroundColor: 'var(--surface-2)', color: 'var(--muted)', borderRight: '1px solid var(--border)' },
  '.cm-activeLineGutter': { backgroundColor: 'var(--accent-soft)', color: 'var(--text)' },
  '.cm-tooltip': { backgroundColor: 'var(--surface)', color: 'var(--text)', border: '1px solid var(--border)', borderRadius: '6px' },
  '.cm-tooltip-autocomplete ul li[aria-selected]': { backgroundColor: 'var(--accent)', color: 'var(--surface)' },
  '.cm-completionInfo': { maxWidth: '48ch', padding: '6px 8px' },
  '.cm-policy-doc': { maxWidth: '52ch', padding: '6px 8px', fontFamily: 'var(--font)' },
  '.cm-policy-doc p': { margin: '4px 0 0' },
  '.cm-policy-doc__path': { fontFamily: 'var(--mono)', color: 'var(--accent)' },
  '.cm-diagnostic-error': { borderLeftColor: 'var(--bad)' },
  '.cm-diagnostic-warning': { borderLeftColor: 'var(--warn)' },
});

/**
 * Text typed over a selection is applied here rather than by the browser: Chrome's own editing,
 * when it removes a selection that spans lines, keeps the removed lines' look in a `style`
 * attribute, which the cockpit's CSP refuses (a violation report on every such edit).
 */
const replaceSelectionOnInput = EditorView.domEventHandlers({
  beforeinput(event, view) {
    if (event.inputType !== 'insertText' || event.data === null || view.composing || view.state.selection.ranges.every((range) => range.empty)) return false;
    event.preventDefault();
    view.dispatch(view.state.update(view.state.replaceSelection(event.data), { scrollIntoView: true, userEvent: 'input.type' }));
    return true;
  },
});

/** Completes AgentPolicy keys (those of the mapping the cursor is in) and enumerated values, from the schema the loader enforces. */
function completeKeys(context: CompletionContext): CompletionResult | null {
  const before = context.state.sliceDoc(0, context.pos);
  const value = valueContextAt(before, context.pos);
  if (value) return { from: value.from, options: value.values.map((label) => ({ label, type: 'enum' })), validFor: /^[\w-]*$/ };
  const where = keyContextAt(before, context.pos);
  if (!where || (where.prefix === '' && !context.explicit)) return null;
  const keys = policyKeysAt(where.path);
  if (keys.length === 0) return null;
  return {
    from: where.from,
    options: keys.map(({ key, description }) => ({ label: key, type: 'property', apply: `${key}: `, ...(description ? { info: description } : {}) })),
    validFor: /^[\w-]*$/,
  };
}

/** The hover card of a field: its path, the schema's description, the values it accepts and its default. */
function fieldCard(field: PolicyFieldDoc): HTMLElement {
  const card = document.createElement('div');
  card.className = 'cm-policy-doc';
  card.setAttribute('role', 'tooltip');
  card.setAttribute('aria-label', `About ${field.path}`);
  const title = card.appendChild(document.createElement('code'));
  title.className = 'cm-policy-doc__path';
  title.textContent = field.path;
  const lines = [
    field.description,
    field.values.length > 0 ? `Values: ${field.values.join(', ')}` : '',
    field.defaultValue !== undefined ? `Default: ${field.defaultValue}` : '',
  ];
  for (const line of lines.filter(Boolean)) card.appendChild(document.createElement('p')).textContent = line;
  return card;
}

const fieldDocs = hoverTooltip((view, pos): Tooltip | null => {
  const field = policyFieldAt(view.state.doc.toString(), pos);
  return field ? { pos: field.from, end: field.to, above: true, create: () => ({ dom: fieldCard(field) }) } : null;
});

export function createPolicyEditor(host: HTMLElement, options: PolicyEditorOptions): PolicyEditorHandle {
  const root = host.shadowRoot ?? host.attachShadow({ mode: 'open' });
  const state = EditorState.create({
    doc: options.text,
    extensions: [
      lineNumbers(),
      highlightActiveLineGutter(),
      history(),
      drawSelection(),
      indentOnInput(),
      bracketMatching(),
      EditorState.tabSize.of(2),
      yaml(),
      syntaxHighlighting(highlightStyle),
      autocompletion({ override: [completeKeys] }),
      fieldDocs,
      lintGutter(),
      // No Tab binding: Tab keeps moving focus out of the editor (Enter indents the new line).
      keymap.of([...completionKeymap, ...defaultKeymap, ...historyKeymap, ...lintKeymap]),
      EditorView.contentAttributes.of({ 'aria-label': options.label }),
      replaceSelectionOnInput,
      theme,
      EditorView.updateListener.of((update) => {
        if (update.docChanged && !update.transactions.some((tr) => tr.annotation(fromOutside))) options.onChange(update.state.doc.toString());
      }),
    ],
  });
  const view = new EditorView({ state, parent: root, root });

  return {
    setText(text) {
      if (view.state.doc.toString() === text) return;
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text }, annotations: fromOutside.of(true) });
    },
    setDiagnostics(diagnostics) {
      const text = view.state.doc.toString();
      const marks: Diagnostic[] = diagnostics.map((d) => ({ ...diagnosticRange(text, d.line, d.column), severity: d.severity, message: d.message, ...(d.path ? { source: d.path } : {}) }));
      view.dispatch(setDiagnostics(view.state, marks));
      return diagnosticCount(view.state);
    },
    destroy() {
      view.destroy();
    },
  };
}
