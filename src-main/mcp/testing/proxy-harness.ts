import { unsandboxedLauncher } from '../sandbox/server-launcher.js';
import type { AuditEntry } from '../../../src-shared/schemas/audit.js';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ClientCapabilities, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { openHome, recordInitialisation, type Ledger } from '../../app/home.js';
import type { StandingGrants } from '../../approval/standing/grants.js';
import { formatPolicyError } from '../../cli/commands/policy-loading.js';
import { OwnerKeyVault, ownerAccountForHome, type OwnerSigner } from '../../keys/owner-key.js';
import { OsKeyring, type SecretStore } from '../../keys/secret-store.js';
import { StateSeals } from '../../keys/sealed-state.js';
import { anchorPolicyInForce } from '../../aip/policy/in-force.js';
import { PolicySignError, signPolicyText } from '../../aip/policy/sign.js';
import { PolicyVersionRepository } from '../../store/repositories/policy-versions.js';
import { SILAS_BIN } from '../../testing/cli.js';
import type { Approver } from '../proxy/approver.js';
import { LineSplitter } from '../../../src-shared/contract/ndjson.js';
import { runProxy, type ProxyExit } from '../proxy/proxy.js';
import { DEFAULT_ASK_TIMEOUT_S } from '../proxy/ask-timing.js';

/* Test support for the proxy: homes, policies, real servers, SDK clients through the proxy. */

export const SERVERS = {
  fileTools: fileURLToPath(new URL('./servers/file-tools-server.mjs', import.meta.url)),
  changing: fileURLToPath(new URL('./servers/changing-tool-server.mjs', import.meta.url)),
  secrets: fileURLToPath(new URL('./servers/secrets-server.mjs', import.meta.url)),
  variants: fileURLToPath(new URL('./servers/variant-tool-server.mjs', import.meta.url)),
  elicits: fileURLToPath(new URL('./servers/elicit-server.mjs', import.meta.url)),
  paged: fileURLToPath(new URL('./servers/paged-tools-server.mjs', import.meta.url)),
};

export interface TestHome {
  home: string;
  /** The owner key the home was initialised with (in-memory keyring). */
  signer: OwnerSigner;
  secretStore: SecretStore;
  /** Opens the ledger as a verifier would (DB public key). */
  open(): Ledger;
}

/** The home createTestHome made last in this test file: whose owner signs the policies writePolicy writes. */
let lastTestHome: TestHome | null = null;

export function createTestHome(home: string): TestHome {
  // The real OS keyring (a throwaway one under scripts/with-keyring.sh): proxy children need it to write the ledger.
  const secretStore = new OsKeyring();
  const ledger = openHome(home, { create: true, keys: 'signer', secretStore });
  recordInitialisation(ledger);
  ledger.close();
  const signer = new OwnerKeyVault(secretStore, ownerAccountForHome(home)).load()!;
  lastTestHome = { home, signer, secretStore, open: () => openHome(home, { create: false, keys: 'verify', secretStore }) };
  return lastTestHome;
}

/**
 * Signs `file` with the home's owner key and puts it in force for the home's proxies (the keyring
 * anchor `silas policy sign` and the cockpit's save write): what a person does before a proxy
 * enforces a policy (docs/mcp-proxy.md "Signed policies"). Returns the signed text.
 */
export function signPolicyForHome(home: Pick<TestHome, 'home' | 'signer' | 'secretStore'>, file: string, text = readFileSync(file, 'utf8')): string {
  const signed = signPolicyText(text, home.signer);
  const seals = new StateSeals({ keys: { ledger: () => null, owner: () => home.signer }, anchors: { store: home.secretStore, absoluteHome: home.home } });
  anchorPolicyInForce(seals, file, signed);
  writeFileSync(file, signed);
  return signed;
}

/** The home's ledger entries after its chain verified (checkpoints, the ledger's own bookkeeping, left out). */
export function verifiedEntries(home: TestHome): AuditEntry[] {
  const ledger = home.open();
  try {
    const verdict = ledger.audit.verifyChain();
    if (!verdict.valid) throw new Error(`the ledger's chain does not verify: ${JSON.stringify(verdict)}`);
    return [...ledger.audit.since()].filter((e) => e.event !== 'audit.checkpoint');
  } finally {
    ledger.close();
  }
}

/**
 * Writes a test policy with `spec` under `spec:`, signed by the owner of `home` (default: the
 * home createTestHome made last) and put in force, as a person's policy is; `unsigned: true`
 * leaves it as written (a proxy then refuses it unless started with --allow-unsigned).
 */
export function writePolicy(dir: string, spec: string, name = 'policy.yaml', options: { home?: TestHome; unsigned?: boolean } = {}): string {
  const file = join(dir, name);
  const text = `apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata:\n  name: proxy-test\nspec:\n${spec}`;
  const home = options.home ?? lastTestHome;
  if (!options.unsigned && home) {
    try {
      signPolicyForHome(home, file, text);
      return file;
    } catch (error) {
      // An invalid policy cannot be signed: it is written as it is, for the tests of invalid policies.
      if (!(error instanceof PolicySignError)) throw error;
    }
  }
  writeFileSync(file, text);
  return file;
}

/** The environment for proxy children: this session's keyring, which holds the ledger key they write with. */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  return { ...env, ...extra };
}

export interface ProxiedClient {
  client: Client;
  stderr(): string;
  close(): Promise<void>;
}

/**
 * An SDK client talking to `server` through `node bin/silas.js proxy`. Unsandboxed unless
 * `sandbox` is set: these tests exercise the relay, and the sandbox tests exercise the sandbox
 * (mcp/sandbox/*.process.test.ts).
 */
export async function connectThroughProxy(options: { home: string; policy: string; server: string; env?: Record<string, string>; extra?: string[]; sandbox?: boolean; serverArgs?: string[] }): Promise<ProxiedClient> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SILAS_BIN, 'proxy', '--policy', options.policy, '--home', options.home, ...(options.sandbox ? [] : ['--no-sandbox']), ...(options.extra ?? []), '--', process.execPath, options.server, ...(options.serverArgs ?? [])],
    env: childEnv(options.env),
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const client = new Client({ name: 'proxy-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => err, close: () => client.close() };
}

/** The proxy as a child process, driven with raw lines (for input no SDK client would send); unsandboxed like connectThroughProxy. */
export function spawnProxy(args: string[], env: Record<string, string> = {}): { child: ChildProcessWithoutNullStreams; lines: string[]; stderr(): string; nextLine(timeoutMs?: number): Promise<string> } {
  const child = spawn(process.execPath, [SILAS_BIN, 'proxy', '--no-sandbox', ...args], { env: childEnv(env) });
  const lines: string[] = [];
  const waiters: Array<(line: string) => void> = [];
  let err = '';
  const splitter = new LineSplitter((line) => {
    const waiter = waiters.shift();
    if (waiter) waiter(line);
    else lines.push(line);
  });
  child.stdout.on('data', (chunk: Buffer) => splitter.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  return {
    child,
    lines,
    stderr: () => err,
    nextLine: (timeoutMs = 15_000) => {
      const ready = lines.shift();
      if (ready !== undefined) return Promise.resolve(ready);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no line from the proxy within ${timeoutMs} ms; stderr:\n${err}`)), timeoutMs);
        waiters.push((line) => {
          clearTimeout(timer);
          resolve(line);
        });
      });
    },
  };
}

/** An SDK client transport over a pair of streams (the in-process proxy's stdin/stdout). */
export class StreamClientTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  constructor(
    private readonly toProxy: PassThrough,
    private readonly fromProxy: PassThrough,
  ) {}

  async start(): Promise<void> {
    const splitter = new LineSplitter((line) => this.onmessage?.(JSON.parse(line) as JSONRPCMessage));
    this.fromProxy.on('data', (chunk: Buffer | string) => splitter.push(chunk));
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.toProxy.write(`${JSON.stringify(message)}\n`);
  }

  async close(): Promise<void> {
    this.toProxy.end();
    this.onclose?.();
  }
}

export interface InProcessProxy {
  client: Client;
  sessionId: string;
  logs: string[];
  /** Raw line into the proxy's stdin. */
  raw: PassThrough;
  done: Promise<ProxyExit>;
  close(): Promise<ProxyExit>;
}

/**
 * The proxy core in this process with an injected approver (the real server still runs as a
 * child process); the ledger is opened as `silas proxy` opens it: keys from the keyring only.
 */
export async function startInProcessProxy(options: {
  home: string;
  policy: string;
  server: string;
  approver: Approver;
  askTimeoutMs?: number;
  /** How often a waiting ask sends progress (default: the proxy's, 10 s). */
  progressIntervalMs?: number;
  sessionId?: string;
  env?: Record<string, string>;
  /** What the test client declares (elicitation, sampling) so a server may ask it. */
  capabilities?: ClientCapabilities;
  /** The keyring record of standing approvals the proxy consults; without it none is honoured. */
  standingGrants?: StandingGrants;
  /** The keyring the proxy reads (default: the OS keyring createTestHome used). */
  secretStore?: SecretStore;
  /** `--allow-unsigned`: enforce the file whether the owner signed it or not. */
  allowUnsigned?: boolean;
}): Promise<InProcessProxy> {
  const ledger = openHome(options.home, { create: false, keys: 'verify', secretStore: options.secretStore ?? new OsKeyring() });
  const trusted = ledger.trustedKeys();
  const input = new PassThrough();
  const output = new PassThrough();
  const logs: string[] = [];
  const sessionId = options.sessionId ?? `session-${Math.random().toString(16).slice(2)}`;
  const done = runProxy({
    server: 'files',
    command: process.execPath,
    args: [options.server],
    policyFile: options.policy,
    db: ledger.db,
    audit: ledger.audit,
    trustedKeys: () => trusted,
    seals: ledger.seals,
    allowUnsigned: options.allowUnsigned === true,
    savedVersions: () => new PolicyVersionRepository(ledger.db).list(options.policy, 100),
    standingGrants: options.standingGrants,
    approver: options.approver,
    askTimeoutMs: options.askTimeoutMs ?? DEFAULT_ASK_TIMEOUT_S * 1000,
    ...(options.progressIntervalMs !== undefined ? { progressIntervalMs: options.progressIntervalMs } : {}),
    homeDir: homedir(),
    cwd: process.cwd(),
    dataHome: options.home,
    input,
    writeClient: (line) => output.write(`${line}\n`),
    log: (text) => logs.push(text),
    formatPolicyErrors: (errors) => errors.map((e) => formatPolicyError(options.policy, e)),
    env: childEnv(options.env),
    sessionId,
    graceMs: 500,
    // The relay is what these tests exercise; the sandbox has its own (mcp/sandbox/*.test.ts).
    launch: unsandboxedLauncher(process.execPath, [options.server], childEnv(options.env), 'in-process test harness'),
  }).finally(() => ledger.close());
  const client = new Client({ name: 'proxy-test', version: '1.0.0' }, { capabilities: options.capabilities ?? {} });
  await client.connect(new StreamClientTransport(input, output));
  return {
    client,
    sessionId,
    logs,
    raw: input,
    done,
    close: async () => {
      await client.close();
      return done;
    },
  };
}
