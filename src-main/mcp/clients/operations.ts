import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import { loadPolicyFile, POLICY_SIGNATURE_INVALID } from '../../aip/policy/load.js';
import { unifiedDiff } from './diff.js';
import { envAdditions, type AddedEnv } from './entry-env.js';
import { checkEdit, unwrapEntries, wrapEntries, type EntryRestore, type ProxyRuntime, type WrapSpec } from './edit.js';
import { ConfigFormatError, parseClientConfig, REMOTE_REASON, type ParsedConfig, type ServerEntry } from './entries.js';
import { readManifest, sha256, writeBackup, writeFileAtomic, writeManifest, type WrapRecord } from './files.js';
import { CLIENTS, configLocation, type ClientId, type ClientSpec, type LocationContext } from './locations.js';
import { assertPoliciesUnchanged, planSandboxProfiles, writePolicyEdits, type PolicyEdit, type SandboxProfileView } from './policy-sandbox.js';

/*
 * `silas clients` as a library: list the MCP configurations of agent clients, wrap their stdio
 * servers behind `silas proxy`, and unwrap them again byte for byte. The CLI and, later, the
 * cockpit's Servers page call these.
 */

/** The runtime the generated command lines start: this node and this checkout's bin/silas.js. */
export function currentRuntime(): ProxyRuntime {
  return { node: process.execPath, bin: fileURLToPath(new URL('../../../bin/silas.js', import.meta.url)) };
}

/** For `list --config FILE` without a client name: any of the known layouts, read leniently. */
export const ANY_CLIENT: ClientSpec = { id: 'file', label: 'Configuration file', aliases: [], jsonc: true, serverPaths: [['mcpServers'], ['servers'], ['mcp', 'servers']] };

export interface LoadedConfig {
  client: ClientSpec;
  file: string;
  bytes: Buffer;
  mode: number;
  parsed: ParsedConfig;
}

const MAX_CONFIG_BYTES = 16 * 1024 * 1024;

/** Reads and parses a client configuration; every failure names the file and the fix. */
export function loadConfig(client: ClientSpec, file: string): LoadedConfig {
  let bytes: Buffer;
  let mode: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) throw new SilasError(ErrorCode.Config, `${file} is not a regular file; pass the configuration file with --config FILE`);
    if (stat.size > MAX_CONFIG_BYTES) throw new SilasError(ErrorCode.Config, `${file} is ${stat.size} bytes, more than any MCP configuration should be; pass the right file with --config FILE`);
    mode = stat.mode;
    bytes = readFileSync(file);
  } catch (error) {
    if (error instanceof SilasError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new SilasError(ErrorCode.Config, `${file} does not exist: ${client.label} has no MCP configuration there. Add a server in ${client.label} first, or pass the file with --config FILE.`);
    throw new SilasError(ErrorCode.Permission, `cannot read ${file}: ${(error as Error).message}; check its permissions`, { cause: error });
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new SilasError(ErrorCode.Config, `${file} is not UTF-8 text. Nothing was changed; save it as UTF-8 and run the command again.`);
  }
  try {
    return { client, file, bytes, mode, parsed: parseClientConfig(text, client) };
  } catch (error) {
    if (!(error instanceof ConfigFormatError)) throw error;
    const where = error.line !== undefined ? `${file}:${error.line}:${error.column}` : file;
    const kind = client.jsonc ? 'JSON (with comments)' : 'JSON';
    throw new SilasError(ErrorCode.Config, `${where}: not valid ${kind}: ${error.message.replace(/^\d+:\d+ /, '')}. Nothing was changed; fix the file (${client.label} cannot read it either) and run the command again.`);
  }
}

// ---------------------------------------------------------------- list

interface ServerListing {
  name: string;
  transport: ServerEntry['transport'];
  wrapped: boolean;
  policy: string | null;
  /** Why the entry is not (or cannot be) wrapped; null for an ordinary unwrapped stdio entry. */
  note: string | null;
}

export interface ClientListing {
  client: string;
  label: string;
  file: string;
  found: boolean;
  error: string | null;
  servers: ServerListing[];
}

function describeServers(parsed: ParsedConfig): ServerListing[] {
  return parsed.servers.map((entry) => ({
    name: entry.name,
    transport: entry.transport,
    wrapped: entry.wrapped !== undefined,
    policy: entry.wrapped?.policy ?? null,
    note: entry.wrapped ? null : (entry.problem ?? null),
  }));
}

export function listClient(client: ClientSpec, file: string): ClientListing {
  const base = { client: client.id, label: client.label, file };
  if (!existsSync(file)) return { ...base, found: false, error: null, servers: [] };
  try {
    const loaded = loadConfig(client, file);
    return { ...base, found: true, error: null, servers: describeServers(loaded.parsed) };
  } catch (error) {
    return { ...base, found: true, error: (error as Error).message, servers: [] };
  }
}

export function listAllClients(ctx: LocationContext): ClientListing[] {
  return CLIENTS.map((client) => listClient(client, configLocation(client.id, ctx)));
}

// ---------------------------------------------------------------- wrap

export interface WrapOptions {
  /** Only these servers; all stdio servers when absent. */
  servers?: readonly string[];
  /** One policy for every wrapped server; otherwise HOME/policies/<server>.yaml. */
  policy?: string;
  /** The data home: default policies and the manifest live there. */
  silasHome: string;
  /** Put `--home` into the command line (when the home is not the default one). */
  homeInCommandLine: boolean;
  runtime: ProxyRuntime;
  /** Write `--allow-unsigned` into each proxy command line (development only; never the default). */
  allowUnsigned?: boolean;
  /** Variables each proxy needs in its entry's `env` where the client has one (`proxyEnvironment`, entry-env.ts). */
  proxyEnv?: Readonly<Record<string, string>>;
}

export interface WrapPlan {
  config: LoadedConfig;
  after: string;
  wrapped: { name: string; policy: string }[];
  /** Entries left alone, with the reason. */
  skipped: { name: string; reason: string }[];
  diff: string;
  /** Starting sandbox profiles added to the servers' own policies, written only with the configuration. */
  policyEdits: PolicyEdit[];
  /** Every wrapped server's proposed profile: its policy's diff ('' when not edited) and notes. */
  sandboxProfiles: SandboxProfileView[];
  /** Per server, what wrap adds to its `env`; recorded so an entry unwrap takes back exactly that. */
  env: Record<string, AddedEnv>;
}

/** A policy is usable when it loads; a signature is checked by the proxy with the owner key. */
function checkPolicy(path: string): void {
  if (!existsSync(path)) throw new SilasError(ErrorCode.Config, `the policy ${path} does not exist; nothing was changed. Pass an existing policy with --policy FILE.`);
  const result = loadPolicyFile(path);
  if (result.ok) return;
  const errors = result.errors.filter((e) => e.code !== POLICY_SIGNATURE_INVALID);
  if (errors.length === 0) return;
  const lines = errors.slice(0, 10).map((e) => (e.line > 0 ? `  ${path}:${e.line}:${e.column} ${e.path ? `${e.path}: ` : ''}${e.message}` : `  ${path}: ${e.message}`));
  throw new SilasError(ErrorCode.Config, `the policy ${path} is not valid, so a wrapped server would not start; nothing was changed. Fix it (\`silas policy validate ${path}\`) or pass another with --policy FILE:\n${lines.join('\n')}`);
}

function safeFileName(name: string): boolean {
  return name.length > 0 && !/[\\/\0]/.test(name) && name !== '.' && name !== '..';
}

function defaultPolicyPath(silasHome: string, server: string): string | undefined {
  return safeFileName(server) ? join(silasHome, 'policies', `${server}.yaml`) : undefined;
}

export function planWrap(config: LoadedConfig, options: WrapOptions): WrapPlan {
  const { parsed } = config;
  const selected = options.servers ? parsed.servers.filter((e) => options.servers!.includes(e.name)) : parsed.servers;
  const skipped: WrapPlan['skipped'] = [];
  const candidates: ServerEntry[] = [];
  for (const entry of selected) {
    if (entry.wrapped) skipped.push({ name: entry.name, reason: `already runs through silas proxy${entry.wrapped.policy ? ` (policy ${entry.wrapped.policy})` : ''}; not wrapped twice` });
    else if (entry.transport === 'remote') skipped.push({ name: entry.name, reason: REMOTE_REASON });
    else if (entry.problem) skipped.push({ name: entry.name, reason: entry.problem });
    else candidates.push(entry);
  }
  const policies = new Map<string, string>();
  const missing: string[] = [];
  for (const entry of candidates) {
    const policy = options.policy !== undefined ? resolve(options.policy) : defaultPolicyPath(options.silasHome, entry.name);
    if (policy === undefined || !existsSync(policy)) missing.push(entry.name);
    else policies.set(entry.name, policy);
  }
  if (options.policy !== undefined && candidates.length > 0) checkPolicy(resolve(options.policy));
  if (missing.length > 0) {
    const paths = missing.map((name) => `  ${name}: ${defaultPolicyPath(options.silasHome, name) ?? '(the name cannot be a file name)'}`);
    throw new SilasError(
      ErrorCode.Config,
      `no policy for ${missing.map((n) => `"${n}"`).join(', ')}; nothing was changed in ${config.file}. Pass --policy FILE, or create a default policy at:\n${paths.join('\n')}`,
    );
  }
  if (options.policy === undefined) for (const policy of new Set(policies.values())) checkPolicy(policy);
  const targets = new Map<string, WrapSpec>();
  const proxyEnv = config.client.stdioEnv && options.proxyEnv && Object.keys(options.proxyEnv).length > 0 ? options.proxyEnv : undefined;
  for (const [name, policy] of policies) targets.set(name, { policy, ...(options.homeInCommandLine ? { home: options.silasHome } : {}), client: config.client.id, ...(options.allowUnsigned ? { allowUnsigned: true } : {}), ...(proxyEnv ? { env: proxyEnv } : {}) });
  const env: Record<string, AddedEnv> = {};
  for (const entry of candidates) {
    const added = proxyEnv && targets.has(entry.name) ? envAdditions(entry, proxyEnv) : null;
    if (added) env[entry.name] = added;
  }
  const after = targets.size > 0 ? wrapEntries(parsed, options.runtime, targets) : parsed.text;
  if (targets.size > 0) {
    const check = checkEdit(parsed, after, config.client, new Set(targets.keys()), new Set(Object.keys(proxyEnv ?? {})));
    for (const name of targets.keys()) {
      if (!check.servers.find((e) => e.name === name)?.wrapped) throw new Error(`internal: "${name}" does not read as wrapped after the edit; nothing was written`);
    }
  }
  return {
    config,
    after,
    wrapped: [...policies].map(([name, policy]) => ({ name, policy })),
    skipped,
    diff: unifiedDiff(parsed.text, after, config.file, `${config.file} (wrapped)`),
    ...planSandboxProfiles(candidates, policies, (name) => defaultPolicyPath(options.silasHome, name)),
    env,
  };
}

function assertUnchanged(config: LoadedConfig): void {
  let now: Buffer;
  try {
    now = readFileSync(config.file);
  } catch (error) {
    throw new SilasError(ErrorCode.Config, `cannot read ${config.file} again (${(error as Error).message}); nothing was written. Run the command again.`);
  }
  if (!now.equals(config.bytes)) throw new SilasError(ErrorCode.Config, `${config.file} changed while silas was editing it (is ${config.client.label} writing it?); nothing was written. Run the command again.`);
}

export interface WrapResult {
  backup: string;
  record: WrapRecord;
}

export interface ApplyWrapHooks {
  /**
   * Runs once the backup is on disk and before the file is rewritten (the cockpit audits the
   * wrap here, so the entry precedes its effect); throwing leaves the file unchanged.
   */
  beforeRewrite?: (backup: string) => void;
}

/**
 * Backup, the policies' sandbox profiles, atomic rewrite, manifest record. Call only when the plan
 * wraps something. The policies go first and are put back if the configuration cannot be written:
 * a server wrapped without its profile would start with nothing granted.
 */
export function applyWrap(plan: WrapPlan, silasHome: string, now: Date, hooks: ApplyWrapHooks = {}): WrapResult {
  const { config } = plan;
  assertUnchanged(config);
  assertPoliciesUnchanged(plan.policyEdits);
  const afterBytes = Buffer.from(plan.after, 'utf8');
  const backup = writeBackup(config.file, config.bytes, config.mode, now);
  hooks.beforeRewrite?.(backup);
  const undoPolicies = writePolicyEdits(plan.policyEdits);
  try {
    writeFileAtomic(config.file, afterBytes, config.mode);
  } catch (error) {
    let policies = '';
    try {
      undoPolicies();
    } catch (undoError) {
      policies = ` The sandbox profiles added to ${plan.policyEdits.map((e) => e.file).join(', ')} could not be removed again (${(undoError as Error).message}); remove them by hand.`;
    }
    throw new SilasError(
      ErrorCode.Permission,
      `cannot rewrite ${config.file}: ${(error as Error).message}; the file is unchanged (a copy is in ${backup}). Make it writable and run the command again.${policies}`,
      { cause: error },
    );
  }
  const record: WrapRecord = {
    client: config.client.id,
    file: config.file,
    backup,
    servers: plan.wrapped.map((w) => w.name),
    sha256Before: sha256(config.bytes),
    sha256After: sha256(afterBytes),
    wrappedAt: now.toISOString(),
    ...(Object.keys(plan.env).length > 0 ? { env: plan.env } : {}),
  };
  try {
    const manifest = readManifest(silasHome);
    manifest.wraps.push(record);
    writeManifest(silasHome, manifest);
  } catch (error) {
    throw new SilasError(
      ErrorCode.Config,
      `${config.file} was wrapped, but the record for unwrap could not be saved (${(error as Error).message}). To undo the wrap, copy ${backup} over ${config.file}.`,
      { cause: error },
    );
  }
  return { backup, record };
}

// ---------------------------------------------------------------- unwrap

export interface UnwrapPlan {
  config: LoadedConfig;
  after: Buffer;
  diff: string;
  /** The manifest records this unwrap settles. */
  records: WrapRecord[];
  /** Entries restored (entry mode) or the backup restored (file mode). */
  restored: string[];
  backup?: string;
  notes: string[];
}

function recordsFor(silasHome: string, config: LoadedConfig): WrapRecord[] {
  return readManifest(silasHome).wraps.filter((r) => r.client === config.client.id && r.file === config.file);
}

/** File mode: the backup of the earliest wrap in the unbroken chain that ends at the current bytes. */
export function planUnwrap(config: LoadedConfig, silasHome: string, command: string): UnwrapPlan {
  const records = recordsFor(silasHome, config);
  const entryHint = `restore only the wrapped entries with \`${command} --force-entries\``;
  if (records.length === 0) {
    throw new SilasError(ErrorCode.Config, `no wrap of ${config.file} is recorded in ${join(silasHome, 'clients', 'wraps.json')}. If you wrapped it with another --home, pass that --home; otherwise ${entryHint}.`);
  }
  const current = sha256(config.bytes);
  let first = records.length - 1;
  const last = records[first]!;
  if (last.sha256After !== current) {
    throw new SilasError(
      ErrorCode.Config,
      `${config.file} changed since silas wrapped it on ${last.wrappedAt}, so restoring the backup would undo those later changes; nothing was changed. Either copy the backup back by hand (${last.backup} holds the file as it was before wrapping), or ${entryHint}.`,
    );
  }
  while (first > 0 && records[first - 1]!.sha256After === records[first]!.sha256Before) first--;
  const chain = records.slice(first);
  const origin = chain[0]!;
  let bytes: Buffer;
  try {
    bytes = readFileSync(origin.backup);
  } catch (error) {
    throw new SilasError(ErrorCode.Config, `the backup ${origin.backup} cannot be read (${(error as Error).message}); nothing was changed. ${entryHint[0]!.toUpperCase()}${entryHint.slice(1)}.`);
  }
  if (sha256(bytes) !== origin.sha256Before) {
    throw new SilasError(ErrorCode.Config, `the backup ${origin.backup} is not the file silas saved (its sha256 differs); nothing was changed. ${entryHint[0]!.toUpperCase()}${entryHint.slice(1)}.`);
  }
  const notes: string[] = [];
  if (first > 0) notes.push(`an earlier wrap (${records[first - 1]!.wrappedAt}, backup ${records[first - 1]!.backup}) was followed by other edits; its entries stay wrapped: ${entryHint}.`);
  return {
    config,
    after: bytes,
    diff: unifiedDiff(config.parsed.text, bytes.toString('utf8'), config.file, `${config.file} (restored from ${origin.backup})`),
    records: chain,
    restored: [...new Set(chain.flatMap((r) => r.servers))],
    backup: origin.backup,
    notes,
  };
}

/** Entry mode: only the wrapped entries' command and args go back; everything else stays. */
export function planUnwrapEntries(config: LoadedConfig, silasHome: string, servers?: readonly string[]): UnwrapPlan {
  const records = recordsFor(silasHome, config);
  const restores: EntryRestore[] = [];
  const notes: string[] = [];
  for (const entry of config.parsed.servers) {
    if (!entry.wrapped || (servers && !servers.includes(entry.name))) continue;
    const fromBackup = originalFromBackups(config, records, entry.name);
    if (!fromBackup && !entry.wrapped.original) {
      notes.push(`"${entry.name}" runs silas proxy without a "-- COMMAND" part and no backup holds its original; restore it by hand.`);
      continue;
    }
    // What the newest wrap of this entry added to its env goes back out with it (entry-env.ts).
    const addedEnv = [...records].reverse().find((r) => r.servers.includes(entry.name))?.env?.[entry.name];
    restores.push({ name: entry.name, ...(fromBackup ? { fromBackup } : {}), ...(addedEnv ? { addedEnv } : {}) });
    if (!fromBackup) notes.push(`"${entry.name}": no backup holds the original entry, so its command and args were rebuilt from the proxy command line.`);
  }
  const text = restores.length > 0 ? unwrapEntries(config.parsed, restores) : config.parsed.text;
  if (restores.length > 0) {
    const envKeys = new Set(restores.flatMap((r) => Object.keys(r.addedEnv?.vars ?? {})));
    const check = checkEdit(config.parsed, text, config.client, new Set(restores.map((r) => r.name)), envKeys);
    for (const r of restores) {
      if (check.servers.find((e) => e.name === r.name)?.wrapped) throw new Error(`internal: "${r.name}" still reads as wrapped after the edit; nothing was written`);
    }
  }
  const after = Buffer.from(text, 'utf8');
  const stillWrapped = restores.length > 0 && parseClientConfig(text, config.client).servers.some((e) => e.wrapped);
  return {
    config,
    after,
    diff: unifiedDiff(config.parsed.text, text, config.file, `${config.file} (entries unwrapped)`),
    records: stillWrapped ? [] : records,
    restored: restores.map((r) => r.name),
    notes,
  };
}

/** The newest backup that holds `name` as an ordinary (unwrapped) stdio entry. */
function originalFromBackups(config: LoadedConfig, records: WrapRecord[], name: string): EntryRestore['fromBackup'] {
  for (const record of [...records].reverse()) {
    if (!record.servers.includes(name) || !existsSync(record.backup)) continue;
    try {
      const bytes = readFileSync(record.backup);
      if (sha256(bytes) !== record.sha256Before) continue;
      const parsed = parseClientConfig(bytes.toString('utf8'), config.client);
      const entry = parsed.servers.find((e) => e.name === name);
      if (entry && entry.transport === 'stdio' && !entry.wrapped && !entry.problem) return { text: parsed.text, entry };
    } catch {
      continue;
    }
  }
  return undefined;
}

/** Writes the unwrap: a safety backup in entry mode, the atomic rewrite, the manifest. */
export function applyUnwrap(plan: UnwrapPlan, silasHome: string, now: Date, options: { backupFirst: boolean }): { safetyBackup?: string } {
  const { config } = plan;
  if (plan.after.equals(config.bytes)) return {};
  assertUnchanged(config);
  const safetyBackup = options.backupFirst ? writeBackup(config.file, config.bytes, config.mode, now) : undefined;
  try {
    writeFileAtomic(config.file, plan.after, config.mode);
  } catch (error) {
    throw new SilasError(ErrorCode.Permission, `cannot rewrite ${config.file}: ${(error as Error).message}; the file is unchanged. Make it writable and run the command again.`, { cause: error });
  }
  if (plan.records.length > 0) {
    const manifest = readManifest(silasHome);
    const settled = new Set(plan.records.map((r) => `${r.file}\0${r.backup}`));
    manifest.wraps = manifest.wraps.filter((r) => !settled.has(`${r.file}\0${r.backup}`));
    writeManifest(silasHome, manifest);
  }
  return safetyBackup ? { safetyBackup } : {};
}

/** The configuration file named by --config (absolute) or the client's own location. */
export function resolveConfigFile(client: ClientSpec, flag: string | undefined, ctx: LocationContext): string {
  if (flag !== undefined) return resolve(flag);
  return configLocation(client.id as ClientId, ctx);
}
