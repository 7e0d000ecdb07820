import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { AgentClientView, ClientWrapPlanView } from '../../../src-shared/schemas/clients.js';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import type { AuditLog } from '../../audit/audit-log.js';
import { defaultHome } from '../../home/paths.js';
import type { ProxyRuntime } from './edit.js';
import { readManifest, sha256, type WrapRecord } from './files.js';
import type { PolicyEdit } from './policy-sandbox.js';
import { CLIENTS, configLocation, knownClientNames, type ClientId, type ClientSpec, type LocationContext } from './locations.js';
import { proxyEnvironment } from './entry-env.js';
import { applyUnwrap, applyWrap, listClient, loadConfig, planUnwrap, planWrap, type LoadedConfig, type WrapPlan } from './operations.js';

export interface ClientsServiceOptions {
  /** The data home: the manifest of wraps lives there, and wrapped servers audit into it. */
  silasHome: string;
  audit: Pick<AuditLog, 'append'>;
  /** The node and bin/silas.js the wrapped command lines start. */
  runtime: ProxyRuntime;
  /** Platform, environment and user home that locate each client's configuration. */
  locations: LocationContext;
  /** Configuration files by client, instead of the clients' own locations (tests; the CLI's --config). */
  configFiles?: Partial<Record<ClientId, string>>;
  now?: () => Date;
}

export interface WrapRequest {
  client: string;
  servers?: readonly string[] | undefined;
  policy: string;
}

/**
 * `sha256:` over the plan's diff and the bytes it was computed from: what the person saw is what
 * gets written, or nothing is. The file's bytes count too, because a diff shows only a few lines
 * of context: an edit elsewhere (another argument of a server being wrapped) would not change it.
 * The same holds for each policy the plan adds a sandbox profile to.
 */
export function diffHash(diff: string, before: Uint8Array, policyEdits: readonly Pick<PolicyEdit, 'file' | 'before' | 'diff'>[] = []): string {
  const parts = [Buffer.from(`${sha256(before)}\n`, 'utf8'), Buffer.from(diff, 'utf8')];
  for (const edit of policyEdits) {
    parts.push(Buffer.from(`\n\0${edit.file}\0${sha256(Buffer.from(edit.before, 'utf8'))}\n`, 'utf8'), Buffer.from(edit.diff, 'utf8'));
  }
  return `sha256:${sha256(Buffer.concat(parts))}`;
}

/**
 * The cockpit's `silas clients`: the same list, wrap and unwrap as the CLI (operations.ts does
 * the work), audited in the ledger before each rewrite. Nothing here runs on shutdown: quitting
 * the app never unwraps anything.
 */
export class ClientsService {
  private readonly now: () => Date;

  constructor(private readonly options: ClientsServiceOptions) {
    this.now = options.now ?? (() => new Date());
  }

  list(): AgentClientView[] {
    const records = this.manifestRecords();
    return CLIENTS.map((client) => {
      const listing = listClient(client, this.fileOf(client));
      const last = records.filter((r) => r.client === client.id && r.file === listing.file).at(-1);
      return {
        client: listing.client,
        label: listing.label,
        file: listing.file,
        found: listing.found,
        error: listing.error,
        servers: listing.servers.map((s) => ({ name: s.name, transport: s.transport, wrapped: s.wrapped, policy: s.policy, reason: s.note })),
        lastWrap: last ? { backup: last.backup, wrappedAt: last.wrappedAt, servers: last.servers } : null,
      };
    });
  }

  /** What wrapping would change; writes nothing. */
  planWrap(request: WrapRequest): ClientWrapPlanView {
    const { client, plan, policy } = this.plan(request);
    return {
      client: client.id,
      file: plan.config.file,
      policy,
      diff: plan.diff,
      diffHash: diffHash(plan.diff, plan.config.bytes, plan.policyEdits),
      wrap: plan.wrapped,
      skipped: plan.skipped,
      sandboxProfiles: plan.sandboxProfiles,
    };
  }

  /** Applies the plan the person previewed, only while it is still exactly that plan. */
  wrap(request: WrapRequest & { expectedDiffHash: string }): { client: string; file: string; backup: string; servers: string[] } {
    const { client, plan } = this.plan(request);
    const { file } = plan.config;
    if (diffHash(plan.diff, plan.config.bytes, plan.policyEdits) !== request.expectedDiffHash) {
      throw new SilasError(
        ErrorCode.BadRequest,
        `${file} or the policy changed since the preview, so the changes you saw are not the ones that would be written; nothing was changed. Preview the changes again, then apply.`,
      );
    }
    if (plan.wrapped.length === 0) {
      const why = plan.skipped.map((s) => `${s.name}: ${s.reason}`).join('; ');
      throw new SilasError(ErrorCode.Config, `nothing to wrap in ${file}${why ? ` (${why})` : ''}; nothing was changed.`);
    }
    const servers = plan.wrapped.map((w) => w.name);
    const policies = [...new Set(plan.wrapped.map((w) => w.policy))];
    const audited: { backup?: string } = {};
    try {
      const result = applyWrap(plan, this.options.silasHome, this.now(), {
        beforeRewrite: (path) => {
          this.options.audit.append('mcp.client_wrapped', { client: client.id, file, servers, policies, backup: path });
          audited.backup = path;
        },
      });
      return { client: client.id, file, backup: result.backup, servers };
    } catch (error) {
      // Once the ledger says "wrapped", a failure must be recorded too; before that nothing was changed.
      if (audited.backup !== undefined) {
        this.options.audit.append('mcp.client_wrap_failed', {
          client: client.id,
          file,
          servers,
          backup: audited.backup,
          rewritten: this.fileIs(file, Buffer.from(plan.after, 'utf8')),
          error: (error as Error).message,
        });
      }
      throw error;
    }
  }

  /** Restores the file byte for byte from the backup of its wrap, like `silas clients unwrap`. */
  unwrap(request: { client: string }): { client: string; file: string; backup: string; servers: string[] } {
    const client = this.client(request.client);
    const config = this.load(client);
    const plan = planUnwrap(config, this.options.silasHome, this.unwrapCommand(client));
    const backup = plan.backup!;
    const data = { client: client.id, file: config.file, backup, servers: plan.restored };
    this.options.audit.append('mcp.client_unwrapped', data);
    try {
      applyUnwrap(plan, this.options.silasHome, this.now(), { backupFirst: false });
    } catch (error) {
      this.options.audit.append('mcp.client_unwrap_failed', { ...data, restored: this.fileIs(config.file, plan.after), error: (error as Error).message });
      throw error;
    }
    return { client: client.id, file: config.file, backup, servers: plan.restored };
  }

  // ---------------------------------------------------------------- helpers

  private plan(request: WrapRequest): { client: ClientSpec; plan: WrapPlan; policy: string } {
    const client = this.client(request.client);
    const policy = this.policyPath(request.policy);
    const config = this.load(client);
    this.checkServerNames(config, request.servers);
    const plan = planWrap(config, {
      ...(request.servers ? { servers: request.servers } : {}),
      policy,
      silasHome: this.options.silasHome,
      homeInCommandLine: this.options.silasHome !== defaultHome(this.options.locations.env, this.options.locations.platform),
      runtime: this.options.runtime,
      // The runtime's own session bus, so its proxies reach the keyring under any client (entry-env.ts).
      proxyEnv: proxyEnvironment(this.options.locations.env, this.options.locations.platform),
    });
    return { client, plan, policy };
  }

  private client(name: string): ClientSpec & { id: ClientId } {
    const wanted = name.toLowerCase();
    const client = CLIENTS.find((c) => c.id === wanted || c.aliases.includes(wanted));
    if (!client) throw new SilasError(ErrorCode.InvalidArgs, `unknown client "${name}"; known clients: ${knownClientNames()}`);
    return client;
  }

  private fileOf(client: ClientSpec & { id: ClientId }): string {
    return this.options.configFiles?.[client.id] ?? configLocation(client.id, this.options.locations);
  }

  private load(client: ClientSpec & { id: ClientId }): LoadedConfig {
    return loadConfig(client, this.fileOf(client));
  }

  /** The runtime's working directory means nothing to the person, so the path must be absolute (`~/` is expanded). */
  private policyPath(raw: string): string {
    const trimmed = raw.trim();
    if (trimmed === '') throw new SilasError(ErrorCode.InvalidArgs, 'give the policy file every wrapped server will run under');
    const path = trimmed === '~' || trimmed.startsWith('~/') ? join(this.options.locations.home, trimmed.slice(1)) : trimmed;
    if (!isAbsolute(path)) {
      throw new SilasError(
        ErrorCode.InvalidArgs,
        `the policy "${trimmed}" is a relative path; give its full path, for example ${join(this.options.silasHome, 'policies', 'workstation.yaml')}`,
      );
    }
    return path;
  }

  private checkServerNames(config: LoadedConfig, names: readonly string[] | undefined): void {
    if (!names) return;
    const known = config.parsed.servers.map((s) => s.name);
    const unknown = names.filter((n) => !known.includes(n));
    if (unknown.length === 0) return;
    const list = known.length > 0 ? known.map((n) => JSON.stringify(n)).join(', ') : 'none';
    throw new SilasError(ErrorCode.InvalidArgs, `no server ${unknown.map((n) => JSON.stringify(n)).join(', ')} in ${config.file}; its servers: ${list}`);
  }

  /** The CLI command a hint in an unwrap error points to. */
  private unwrapCommand(client: ClientSpec & { id: ClientId }): string {
    const parts = ['silas', 'clients', 'unwrap', client.id];
    const override = this.options.configFiles?.[client.id];
    if (override !== undefined) parts.push('--config', override);
    if (this.options.silasHome !== defaultHome(this.options.locations.env, this.options.locations.platform)) parts.push('--home', this.options.silasHome);
    return parts.join(' ');
  }

  private manifestRecords(): WrapRecord[] {
    try {
      return readManifest(this.options.silasHome).wraps;
    } catch {
      // An unreadable manifest hides only the "last wrap" facts; unwrap reports it with its fix.
      return [];
    }
  }

  private fileIs(file: string, bytes: Buffer): boolean {
    try {
      return readFileSync(file).equals(bytes);
    } catch {
      return false;
    }
  }
}
