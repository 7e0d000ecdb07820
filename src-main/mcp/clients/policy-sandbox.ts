import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { Document, isMap, isScalar, LineCounter, parseDocument } from 'yaml';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import { SANDBOX_KEY } from '../../../src-shared/policy/schema-sandbox.js';
import { loadPolicyText, parsePolicyYaml, POLICY_SIGNATURE_INVALID, readPolicySignature } from '../../aip/policy/load.js';
import { unifiedDiff } from './diff.js';
import { getProp } from './jsonc.js';
import type { ServerEntry } from './entries.js';
import { writeFileAtomic } from './files.js';
import { deriveSandboxProfile } from './sandbox-profile.js';

/*
 * Proposing each wrapped server's starting sandbox (sandbox-profile.ts) where the person will see
 * it: as an edit of the server's own policy, shown as a diff next to the configuration's and
 * written only with it. Only a policy that is the server's alone is edited, and only by inserting
 * the section: every other byte (comments, quoting, order) stays, so the diff is the whole story.
 * A shared policy's one section would apply to every server under it, and a signed policy would
 * lose its signature's cover, so those get the profile as a note to apply by hand.
 */

export interface PolicyEdit {
  server: string;
  file: string;
  before: string;
  after: string;
  diff: string;
  notes: string[];
}

/** What the preview shows for one wrapped server: the policy's diff ('' when not edited) and the notes. */
export interface SandboxProfileView {
  server: string;
  file: string;
  diff: string;
  notes: string[];
}

const COMMENT = '# Starting sandbox profile proposed by `silas clients wrap`: review what it grants.';

/** The section as YAML, `x-silas-sandbox:` first, each line indented by `indent` with `step` per level. */
export function renderSection(section: Record<string, unknown>, indent = 0, step = 2): string[] {
  const body = new Document(section, { version: '1.2' }).toString({ indent: step, lineWidth: 0 }).trimEnd().split('\n');
  const pad = ' '.repeat(indent);
  return [`${pad}${SANDBOX_KEY}:`, ...body.map((line) => `${pad}${' '.repeat(step)}${line}`)];
}

/**
 * The policy text with the section appended as the last key of a block-style `spec:`; the
 * reason instead when its layout does not allow a plain insertion.
 */
function insertSandboxSection(text: string, section: Record<string, unknown>): { ok: true; text: string } | { ok: false; reason: string } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { version: '1.2', lineCounter, uniqueKeys: true });
  const root = doc.contents;
  const specPair = isMap(root) ? root.items.find((pair) => isScalar(pair.key) && pair.key.value === 'spec') : undefined;
  const spec = specPair?.value;
  if (doc.errors.length > 0 || !isScalar(specPair?.key) || !isMap(spec) || spec.items.length === 0) return { ok: false, reason: 'it has no spec: mapping to add it to' };
  if (spec.flow) return { ok: false, reason: 'its spec: is written in flow style ({…})' };
  const column = (offset: number) => lineCounter.linePos(offset).col - 1;
  const firstKey = spec.items[0]!.key;
  const specColumn = column(specPair.key.range![0]);
  const indent = isScalar(firstKey) && firstKey.range ? column(firstKey.range[0]) : -1;
  if (indent <= specColumn) return { ok: false, reason: 'its spec: is not laid out as an indented block' };
  const last = spec.items[spec.items.length - 1]!;
  const lastNode = (last.value ?? last.key) as { range?: [number, number, number] } | null;
  if (!lastNode?.range) return { ok: false, reason: 'the end of its spec: could not be found' };
  const end = lastNode.range[1];
  // After the last value's line, so a comment on that line stays with it.
  const newline = end > 0 && text[end - 1] === '\n' ? end - 1 : text.indexOf('\n', end);
  const at = newline === -1 ? text.length : newline + 1;
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = [`${' '.repeat(indent)}${COMMENT}`, ...renderSection(section, indent, indent - specColumn)];
  const inserted = `${newline === -1 ? eol : ''}${lines.join(eol)}${eol}`;
  return { ok: true, text: `${text.slice(0, at)}${inserted}${text.slice(at)}` };
}

function entryStrings(entry: ServerEntry, key: string): Record<string, string> {
  const node = getProp(entry.node, key)?.value;
  if (node?.kind !== 'object') return {};
  const strings: Record<string, string> = {};
  for (const prop of node.props) if (prop.value.kind === 'string') strings[prop.key] = prop.value.value as string;
  return strings;
}

function entryCwd(entry: ServerEntry): string | undefined {
  const node = getProp(entry.node, 'cwd')?.value;
  return node?.kind === 'string' && isAbsolute(node.value as string) ? (node.value as string) : undefined;
}

function hasSection(text: string): boolean {
  const parsed = parsePolicyYaml(text);
  const spec = parsed.ok ? parsed.json.spec : undefined;
  return typeof spec === 'object' && spec !== null && !Array.isArray(spec) && SANDBOX_KEY in spec;
}

function byHand(policy: string, section: Record<string, unknown>, why: string): string {
  return `add this to ${policy} under spec: (${why}):\n${renderSection(section, 2).join('\n')}`;
}

/** The edited policy must load as the proxy will load it, and carry the section; otherwise nothing is planned. */
function checkEdited(policy: string, server: string, after: string): void {
  const result = loadPolicyText(after, { sourcePath: policy });
  const errors = result.ok ? [] : result.errors.filter((e) => e.code !== POLICY_SIGNATURE_INVALID);
  if (errors.length === 0 && (!result.ok || result.policy.sandbox !== null)) return;
  const lines = errors.slice(0, 5).map((e) => `  ${policy}:${e.line}:${e.column} ${e.path ? `${e.path}: ` : ''}${e.message}`);
  throw new SilasError(
    ErrorCode.Config,
    `the sandbox profile proposed for "${server}" does not load once added to ${policy}; nothing was changed. Add ${SANDBOX_KEY} to the policy by hand (docs/mcp-sandbox.md), then wrap again:\n${lines.join('\n')}`,
  );
}

/**
 * The starting profile of every wrapped server (`policies`: server → policy), as policy edits
 * where allowed and notes elsewhere. A policy is a server's own when it sits at the server's
 * default path (`ownPath`, HOME/policies/<server>.yaml) and no other server of the wrap uses it.
 */
export function planSandboxProfiles(
  entries: readonly ServerEntry[],
  policies: ReadonlyMap<string, string>,
  ownPath: (server: string) => string | undefined,
): { policyEdits: PolicyEdit[]; sandboxProfiles: SandboxProfileView[] } {
  const policyEdits: PolicyEdit[] = [];
  const sandboxProfiles: SandboxProfileView[] = [];
  const home = homedir();
  // A shared policy is read once, not once per server (a wrap may cover thousands of entries).
  const read = new Map<string, { text: string; hasSection: boolean }>();
  const readPolicy = (path: string) => {
    if (!read.has(path)) {
      const text = readFileSync(path, 'utf8');
      read.set(path, { text, hasSection: hasSection(text) });
    }
    return read.get(path)!;
  };
  const users = new Map<string, number>();
  for (const policy of policies.values()) users.set(policy, (users.get(policy) ?? 0) + 1);
  for (const entry of entries) {
    const policy = policies.get(entry.name);
    if (policy === undefined) continue;
    const sharedBy = users.get(policy)!;
    const own = sharedBy === 1 && ownPath(entry.name) !== undefined && resolve(ownPath(entry.name)!) === resolve(policy);
    const cwd = entryCwd(entry);
    const profile = deriveSandboxProfile({ command: entry.command!, args: entry.args ?? [], env: entryStrings(entry, 'env') }, { ...(cwd !== undefined ? { cwd } : {}), home });
    const view = { server: entry.name, file: policy, diff: '', notes: [...profile.notes] };
    sandboxProfiles.push(view);
    if (profile.section === null) continue;
    const { text: before, hasSection: already } = readPolicy(policy);
    if (already) {
      view.notes.push(`${policy} already has ${SANDBOX_KEY}; left as it is`);
      continue;
    }
    if (!own) {
      const why = sharedBy > 1 ? `it is shared by ${sharedBy} servers of this wrap, and its one ${SANDBOX_KEY} applies to each of them` : 'it is not the server\'s own policy, so silas does not edit it';
      view.notes.push(byHand(policy, profile.section, why));
      continue;
    }
    if (readPolicySignature(before) !== null) {
      view.notes.push(byHand(policy, profile.section, `it is signed, and an edit would leave it unsigned; sign it again afterwards with \`silas policy sign ${policy}\``));
      continue;
    }
    const edit = insertSandboxSection(before, profile.section);
    if (!edit.ok) {
      view.notes.push(byHand(policy, profile.section, `silas cannot insert it without rewriting the file: ${edit.reason}`));
      continue;
    }
    checkEdited(policy, entry.name, edit.text);
    view.diff = unifiedDiff(before, edit.text, policy, `${policy} (sandbox profile)`);
    policyEdits.push({ server: entry.name, file: policy, before, after: edit.text, diff: view.diff, notes: view.notes });
  }
  return { policyEdits, sandboxProfiles };
}

/** Refuses when a policy changed since the plan read it: the diff shown would not be what is written. */
export function assertPoliciesUnchanged(edits: readonly PolicyEdit[]): void {
  for (const edit of edits) {
    let now: string | null;
    try {
      now = readFileSync(edit.file, 'utf8');
    } catch {
      now = null;
    }
    if (now !== edit.before) throw new SilasError(ErrorCode.Config, `${edit.file} changed since the preview; nothing was written. Run the command again to see the new changes.`);
  }
}

/**
 * Writes each edit atomically, keeping the file's mode; returns an undo that puts the previous
 * bytes back, for when the configuration that goes with them cannot be written.
 */
export function writePolicyEdits(edits: readonly PolicyEdit[]): () => void {
  const written: { edit: PolicyEdit; mode: number }[] = [];
  const undo = () => {
    for (const { edit, mode } of written.reverse()) writeFileAtomic(edit.file, Buffer.from(edit.before, 'utf8'), mode);
  };
  for (const edit of edits) {
    const mode = statSync(edit.file).mode;
    try {
      writeFileAtomic(edit.file, Buffer.from(edit.after, 'utf8'), mode);
    } catch (error) {
      undo();
      throw new SilasError(ErrorCode.Permission, `cannot rewrite ${edit.file}: ${(error as Error).message}; nothing was changed. Make it writable and run the command again.`, { cause: error });
    }
    written.push({ edit, mode });
  }
  return undo;
}
