import { DEFAULT_BASE_URLS, isHttpUrl, type ModelProvider, type ModelRole } from '../../../src-shared/llm/config.js';
import type { ModelsConfigureArgs, ModelsStatus, ModelsTestResult, StreamSender, TurnOutcome, WorkProgressStatus } from '../../../src-shared/schemas/stream.js';
import { SECRET_NAME_PATTERN } from '../../../src-shared/secret-names.js';

/* Pure wording of the Stream page: no state, no calls. */

const SENDERS: Record<StreamSender, string> = { person: 'You', silas: 'Silas', system: 'System' };

export function senderLabel(sender: StreamSender): string {
  return SENDERS[sender];
}

/** Hours and minutes in the person's locale; nothing for a timestamp that does not parse. */
export function messageTime(timestamp: string): string {
  const at = new Date(timestamp);
  return Number.isNaN(at.getTime()) ? '' : at.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
}

const WORK_STATUS: Record<WorkProgressStatus, string> = {
  awaiting_approval: 'awaiting approval',
  approved: 'approved',
  running: 'running',
  verification_failed: 'verification failed',
  done: 'done',
  blocked: 'blocked',
  failed: 'failed',
  declined: 'declined',
  stuck: 'stuck',
};

/** A work item's status in words: the badge never relies on colour alone. */
export function workStatusLabel(status: WorkProgressStatus): string {
  return WORK_STATUS[status];
}

/** How the badge is coloured: waiting on the person, going, good, or stopped short. */
export function workStatusTone(status: WorkProgressStatus): 'waiting' | 'active' | 'ok' | 'bad' {
  if (status === 'awaiting_approval') return 'waiting';
  if (status === 'approved' || status === 'running') return 'active';
  if (status === 'done') return 'ok';
  return 'bad';
}

/** The first 8 characters of a plan hash, as the Review card shows it. */
export function shortHash(hash: string): string {
  return hash.slice(0, 8);
}

export function formatTokens(count: number): string {
  return count.toLocaleString('en-US');
}

/** Dollars with enough digits for a cheap turn ("$0.0012"); "not priced" when no answering role has a price. */
export function formatCost(cost: number | null): string {
  if (cost === null) return 'not priced';
  if (cost === 0) return '$0.00';
  if (cost < 0.0001) return '< $0.0001';
  return cost < 1 ? `$${cost.toFixed(4)}` : `$${cost.toFixed(2)}`;
}

const OUTCOMES: Record<TurnOutcome, string> = { answered: 'answered', planned: 'planned work', blocked: 'blocked by a gate', cancelled: 'stopped', failed: 'failed' };

export function turnOutcomeText(outcome: TurnOutcome): string {
  return OUTCOMES[outcome];
}

export const PROVIDER_OPTIONS: readonly { value: ModelProvider; label: string }[] = [
  { value: 'openai-compatible', label: 'Local or OpenAI-compatible (Ollama, LM Studio, vLLM, llama.cpp)' },
  { value: 'openrouter', label: 'OpenRouter' },
  { value: 'anthropic', label: 'Anthropic' },
];

const LOCAL_BASE_URL = 'http://127.0.0.1:11434/v1';

/** What the base URL field shows when empty: the local example, or the public endpoint used when it stays empty. */
export function baseUrlPlaceholder(provider: ModelProvider): string {
  return provider === 'openai-compatible' ? LOCAL_BASE_URL : DEFAULT_BASE_URLS[provider];
}

export const MODEL_PLACEHOLDERS: Record<ModelProvider, string> = {
  'openai-compatible': 'llama3.1:8b',
  openrouter: 'anthropic/claude-sonnet-4.5',
  anthropic: 'claude-sonnet-4-5',
};

export function defaultSecretName(provider: ModelProvider): string {
  return `${provider}-key`;
}

/** The first-run form as typed; `apiKey` lives only in the form and in the one call that stores it. */
export interface ModelFormValues {
  provider: ModelProvider;
  model: string;
  baseUrl: string;
  secretName: string;
  /** The person changed the secret name: they mean a secret that may already hold the key. */
  secretEdited: boolean;
  apiKey: string;
}

export type ModelField = 'provider' | 'model' | 'baseUrl' | 'secretName' | 'apiKey';

export const MODEL_FIELD_LABELS: Record<ModelField, string> = {
  provider: 'Provider',
  model: 'Model',
  baseUrl: 'Base URL',
  secretName: 'Keyring secret name',
  apiKey: 'API key',
};

export interface FieldProblem {
  field: ModelField | null;
  message: string;
}

/** A key is stored only under a name; a local server without a key needs none. */
function needsSecret(form: ModelFormValues): boolean {
  return form.provider !== 'openai-compatible' || form.apiKey !== '' || form.secretEdited;
}

/** What can be told before asking the runtime; it checks everything again. */
export function checkModelForm(form: ModelFormValues): FieldProblem | null {
  if (form.model.trim() === '') return { field: 'model', message: 'Write the model name the provider knows it by, e.g. "llama3.1:8b".' };
  const baseUrl = form.baseUrl.trim();
  if (form.provider === 'openai-compatible' && baseUrl === '') {
    return { field: 'baseUrl', message: `A local or OpenAI-compatible server needs its base URL, e.g. ${LOCAL_BASE_URL} (Ollama) or http://127.0.0.1:1234/v1 (LM Studio).` };
  }
  if (baseUrl !== '' && !isHttpUrl(baseUrl)) return { field: 'baseUrl', message: `Write an http:// or https:// address, e.g. ${LOCAL_BASE_URL}.` };
  const secret = form.secretName.trim();
  if (needsSecret(form) && !SECRET_NAME_PATTERN.test(secret)) {
    return { field: 'secretName', message: `Name the keyring secret with 1 to 64 letters, digits, "_", "." or "-", e.g. "${defaultSecretName(form.provider)}".` };
  }
  return null;
}

/** The `models.configure` arguments for every role; the key goes along only when one was typed. */
export function configureArgs(form: ModelFormValues): ModelsConfigureArgs {
  const baseUrl = form.baseUrl.trim();
  return {
    provider: form.provider,
    model: form.model.trim(),
    ...(baseUrl !== '' ? { base_url: baseUrl } : {}),
    ...(needsSecret(form) ? { api_key_secret: form.secretName.trim() } : {}),
  };
}

const FIELD_NAMES: [RegExp, ModelField][] = [
  [/\b(?:api_key_secret|apiKeySecret)\b/, 'secretName'],
  [/\bapi_key\b/, 'apiKey'],
  [/\b(?:base_url|baseUrl)\b/, 'baseUrl'],
  [/\.model\b/, 'model'],
  [/\.provider\b/, 'provider'],
];

/** The form field a runtime message is about ("args.base_url: …", "models.proxy.apiKeySecret: …"), if it names one. */
export function modelFieldOf(message: string): ModelField | null {
  return FIELD_NAMES.find(([pattern]) => pattern.test(message))?.[1] ?? null;
}

const ROLE_NAMES: Record<ModelRole, string> = { proxy: 'Proxy', planner: 'Planner', executor: 'Executor', scorer: 'Scorer' };

function roleLabel(role: ModelRole): string {
  return ROLE_NAMES[role];
}

/** What stands between the person and a first conversation, one line each. */
export function modelProblems(status: ModelsStatus): string[] {
  const roles = status.roles.filter((r) => r.problem !== null).map((r) => `${roleLabel(r.role)}: ${r.problem}`);
  return status.problem === null ? roles : [status.problem, ...roles];
}

function listed(words: readonly string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

/** After a save: which model now answers for which roles. */
export function savedText(status: ModelsStatus): string {
  const configured = status.roles.filter((r) => r.configured && r.model !== null);
  const first = configured[0];
  if (!first) return 'Saved, but no role has a model yet.';
  const roles = listed(configured.map((r) => r.role));
  const ready = status.ready ? 'Silas can talk now.' : 'Silas cannot talk yet; see what is missing above.';
  return `Saved: ${first.model} (${first.provider}) answers for ${roles}. ${ready}`;
}

export function testText(result: ModelsTestResult): string {
  return `${result.ok ? 'Connection works' : 'Connection failed'}: ${result.message}`;
}

/** Where a suggestion came from, in words ("from the executor (tool output, external)"). */
export function chipSourceLabel(chip: { source?: string; taint?: string }): string {
  if (chip.source === 'executor') return 'from the executor (written after reading tool output, external)';
  return 'from outside content (external)';
}

/** What a work card says about a detail the executor wrote. */
export const EXECUTOR_DETAIL_NOTE = 'written by the executor after reading tool output (external)';
