import { useId, useState, type FormEvent, type ReactNode } from 'react';
import type { ModelProvider } from '../../../../src-shared/llm/config.js';
import type { ModelsConfigureArgs, ModelsStatus } from '../../../../src-shared/schemas/stream.js';
import {
  baseUrlPlaceholder,
  checkModelForm,
  configureArgs,
  defaultSecretName,
  MODEL_FIELD_LABELS,
  MODEL_PLACEHOLDERS,
  PROVIDER_OPTIONS,
  type FieldProblem,
  type ModelField,
  type ModelFormValues,
} from '../stream-format.js';

export interface ModelFormProps {
  models: ModelsStatus;
  saving: boolean;
  /** Nothing else may run meanwhile (a test, a check). */
  disabled: boolean;
  /** The runtime's answer to the last save, with the field it names. */
  problem: FieldProblem | null;
  /** `apiKey`: stored first through secure input (never sent with the configuration), or null. */
  onSave(args: ModelsConfigureArgs, apiKey: string | null): void;
  /** The heading that names the form ("Set up a model"). */
  labelledBy: string;
}

/** Starts from the proxy role's model when one is configured, so changing it starts from what is there. */
function initialValues(models: ModelsStatus): ModelFormValues {
  const proxy = models.roles.find((r) => r.role === 'proxy' && r.configured && r.provider !== null);
  const provider = proxy?.provider ?? 'openai-compatible';
  const secretName = proxy?.key_secret ?? defaultSecretName(provider);
  return { provider, model: proxy?.model ?? '', baseUrl: proxy?.base_url ?? '', secretName, secretEdited: secretName !== defaultSecretName(provider), apiKey: '' };
}

interface FieldProps {
  id: string;
  label: string;
  hint: ReactNode;
  /** The id of the alert naming this field, when it does. */
  errorId: string | null;
  children(props: { id: string; 'aria-invalid': 'true' | undefined; 'aria-describedby': string }): ReactNode;
}

/** A labelled control with its hint, tied to the alert when the problem is about it. */
function Field({ id, label, hint, errorId, children }: FieldProps) {
  const hintId = `${id}-hint`;
  return (
    <div className="model-form__field">
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-invalid': errorId ? 'true' : undefined, 'aria-describedby': errorId ? `${errorId} ${hintId}` : hintId })}
      <p id={hintId} className="model-form__hint">
        {hint}
      </p>
    </div>
  );
}

/**
 * One provider and model for every role. The API key stays in this form's state only until
 * Save hands it to secure input (§8.1: `POST /secrets/NAME` in a browser, `secrets.store` over
 * IPC; the OS keyring), before `models.configure` names its secret; the field is then emptied
 * whatever the answer.
 */
export function ModelForm({ models, saving, disabled, problem, onSave, labelledBy }: ModelFormProps) {
  const [form, setForm] = useState<ModelFormValues>(() => initialValues(models));
  const [local, setLocal] = useState<FieldProblem | null>(null);
  const id = useId();
  const ids = { provider: `${id}-provider`, model: `${id}-model`, baseUrl: `${id}-base-url`, secretName: `${id}-secret`, apiKey: `${id}-key`, error: `${id}-error` };
  const shown = local ?? problem;
  const isLocal = form.provider === 'openai-compatible';

  const plain = { type: 'text', autoComplete: 'off', spellCheck: false } as const;
  const edit = (changes: Partial<ModelFormValues>) => setForm((f) => ({ ...f, ...changes }));
  const errorFor = (field: ModelField) => (shown?.field === field ? ids.error : null);

  const chooseProvider = (provider: ModelProvider) =>
    setForm((f) => ({ ...f, provider, secretName: f.secretEdited ? f.secretName : defaultSecretName(provider) }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = checkModelForm(form);
    setLocal(found);
    if (found) return;
    onSave(configureArgs(form), form.apiKey === '' ? null : form.apiKey);
    edit({ apiKey: '' });
  };

  return (
    <form className="model-form" aria-labelledby={labelledBy} onSubmit={submit} noValidate>
      {shown ? (
        <p id={ids.error} role="alert" className="notice notice--error">
          Could not save the model. {shown.field ? `${MODEL_FIELD_LABELS[shown.field]}: ` : ''}
          {shown.message}
        </p>
      ) : null}
      <Field id={ids.provider} label="Provider" errorId={errorFor('provider')} hint="Where the model runs. The same model answers for every role (proxy, planner, executor, scorer).">
        {(props) => (
          <select {...props} value={form.provider} onChange={(e) => chooseProvider(e.target.value as ModelProvider)}>
            {PROVIDER_OPTIONS.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field id={ids.model} label="Model" errorId={errorFor('model')} hint="The name the provider knows the model by.">
        {(props) => <input {...props} {...plain} required placeholder={MODEL_PLACEHOLDERS[form.provider]} value={form.model} onChange={(e) => edit({ model: e.target.value })} />}
      </Field>
      <Field
        id={ids.baseUrl}
        label="Base URL"
        errorId={errorFor('baseUrl')}
        hint={
          isLocal
            ? 'Required: the server’s OpenAI-compatible address, e.g. http://127.0.0.1:11434/v1 (Ollama) or http://127.0.0.1:1234/v1 (LM Studio).'
            : `Optional: left empty, ${baseUrlPlaceholder(form.provider)} is used.`
        }
      >
        {(props) => (
          <input {...props} {...plain} type="url" required={isLocal} placeholder={baseUrlPlaceholder(form.provider)} value={form.baseUrl} onChange={(e) => edit({ baseUrl: e.target.value })} />
        )}
      </Field>
      <Field id={ids.secretName} label="Keyring secret name" errorId={errorFor('secretName')} hint="The name the key is kept under in your system keyring (as with `silas secrets set NAME`).">
        {(props) => <input {...props} {...plain} value={form.secretName} onChange={(e) => edit({ secretName: e.target.value, secretEdited: true })} />}
      </Field>
      <Field
        id={ids.apiKey}
        label="API key"
        errorId={errorFor('apiKey')}
        hint={`${isLocal ? 'Optional: most local servers need none.' : 'Leave empty if the keyring secret above already holds the key.'} Stored in the keyring only, never shown again.`}
      >
        {(props) => <input {...props} type="password" autoComplete="off" spellCheck={false} value={form.apiKey} onChange={(e) => edit({ apiKey: e.target.value })} />}
      </Field>
      <div className="model-form__buttons">
        <button type="submit" className="button button--primary" disabled={disabled}>
          Save
        </button>
        {saving ? <span className="model-form__hint">Saving…</span> : null}
      </div>
    </form>
  );
}
