import type { Embedder } from '../silas/memory/embedding/embedder.js';
import type { TokenBudgetInput } from '../../src-shared/silas/context.js';
import { randomBytes } from 'node:crypto';
import { existsSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import type { AuditEventData } from '../../src-shared/audit/events.js';
import type { RuntimeInfo } from '../../src-shared/schemas/runtime.js';
import { WorkItem } from '../../src-shared/silas/work.js';
import { ChainVerifier, keyringVerifierKeys } from '../audit/chain-verifier.js';
import { AuditWatcher } from '../audit/watcher.js';
import { KeyringStandingGrants } from '../approval/standing/grants.js';
import { StandingApprovalService } from '../approval/standing/service.js';
import { CockpitServer, assertBindAllowed } from '../control/cockpit-server.js';
import { LocalSocketTransport } from '../control/local-socket-transport.js';
import { CockpitLinks } from '../control/cockpit-links.js';
import { CockpitCredentials } from '../control/cockpit-credentials.js';
import { ClientsService } from '../mcp/clients/clients-service.js';
import { currentLocationContext, type LocationContext } from '../mcp/clients/locations.js';
import { currentRuntime } from '../mcp/clients/operations.js';
import type { ProxyRuntime } from '../mcp/clients/edit.js';
import { ServersService } from '../mcp/servers/servers-service.js';
import { ApprovalEngine } from '../approval/engine.js';
import { DecisionQueue } from '../review/decision-queue.js';
import { planKind } from '../review/kinds/plan.js';
import { SqliteWorkItemStore } from '../silas/store/work-item-store.js';
import { ToolChangeDecisions } from '../review/kinds/tool-change.js';
import { IlpSliceDecisions, type SliceProposals } from '../review/kinds/ilp-slice.js';
import { MemoryPromotionDecisions, type MemoryPromotions } from '../review/kinds/memory-promotion.js';
import { approvalSignals } from '../silas/memory/approval-signals.js';
import { toolCallKind } from '../review/kinds/tool-call.js';
import { RequesterOrigins } from '../review/requester-origins.js';
import { governedServers } from '../review/governed-servers.js';
import { EventBus } from '../control/event-bus.js';
import { createHandlers } from '../control/handlers.js';
import { ControlRouter } from '../control/router.js';
import type { SecurityEventSink } from '../control/control-session.js';
import { OsKeyring, type SecretStore } from '../keys/secret-store.js';
import { NamedSecrets } from '../keys/named-secrets.js';
import { AuditRepository } from '../store/repositories/audit-repository.js';
import { WalCheckpointer } from '../store/wal-checkpointer.js';
import { acquireHomeLock } from '../home/home.js';
import { IDLE_CHECKPOINT_MS, openHome, recordInitialisation } from './home.js';
import { createFileLogger, type Logger } from './logger.js';
import { runtimeConfig, type RuntimeConfig } from './config.js';
import type { CockpitBuilder, CockpitEndpoint, Notifier, Runtime } from './types.js';
import { APP_VERSION } from './version.js';
import { composeStream } from './compose-stream.js';
import { connectedServers, installationPolicies } from '../mcp/silas-tools/connected-servers.js';
import { PolicyLibrary } from '../aip/library/policy-library.js';
import { composeAlignment } from './compose-alignment.js';
import { templateGallery } from '../aip/templates/catalog.js';
import { PolicyTrials } from '../aip/trial/policy-trials.js';
import { PolicyChecker } from '../aip/trial/policy-checker.js';
import { PolicyVersionRepository } from '../store/repositories/policy-versions.js';
import { ToolPinRepository } from '../store/repositories/tool-pins.js';
import { adoptPoliciesFromBeforeAnchors } from './policy-upgrade.js';
import { sealPinsFromBeforeSeals, toolPinSealer } from '../mcp/tool-pin-seals.js';
import type { SandboxManager } from '../sandbox/index.js';
import { workItemSubject } from '../silas/work/plan-subjects.js';
import { composeIlp, shippedSlicesDir } from './compose-ilp.js';
import { publishIlpCompositions } from '../control/ilp-inspector.js';
import { IlpSocketServer } from '../ilp/transport/socket-server.js';

export interface RuntimeOverrides {
  notifier?: Notifier;
  secretStore?: SecretStore;
  logger?: Logger;
  now?: () => Date;
  /** Where agent clients keep their MCP configuration (platform, env, user home); tests point it at a temp dir. */
  clientLocations?: LocationContext;
  /** The node and bin/silas.js that wrapped client entries start. */
  proxyRuntime?: ProxyRuntime;
  /** Builds the headless cockpit into `cockpitDir` when it is missing; without one, a missing build serves 503. */
  cockpitBuilder?: CockpitBuilder;
  /** `gates.system` of the Stream (§11): checked on every message and answer. */
  streamGates?: readonly unknown[];
  /** Recall by meaning with a scripted embedder; by default HOME/models.json `embedding`, else the local word vectors. */
  embedder?: () => Promise<Embedder>;
  /** The Stream's context budgets (§3.5 TokenBudget); tests pass a small window. */
  contextBudget?: TokenBudgetInput;
  /** The sandbox of plans approved from the Stream; tests swap in one whose bubblewrap is missing. */
  sandboxManager?: (workDir: string) => SandboxManager;
  /** The desktop shell's "open the window": where `silas open` leads when the cockpit is the desktop window. */
  showCockpitWindow?: () => void;
}

/** Rate cap on security events written to the ledger, so a flood of bad sockets cannot flood it. */
const SECURITY_EVENTS_PER_MINUTE = 20;

/**
 * The composition root (docs/architecture.md §4.4): every service is built here and handed its
 * dependencies. Nothing else in src-main reaches for a shared instance.
 */
export async function buildRuntime(partial: Partial<RuntimeConfig> & Pick<RuntimeConfig, 'home' | 'mode'>, overrides: RuntimeOverrides = {}): Promise<Runtime> {
  const config = runtimeConfig(partial);
  // Refuse a dangerous or busy listen before the home is touched: a failed start creates no
  // home, database or owner key. The port stays held from here, so nothing can take it meanwhile.
  let server: CockpitServer | null = null;
  if (config.mode === 'headless') {
    assertBindAllowed(config.host, Boolean(config.tls), config.insecureRemote);
    server = new CockpitServer({
      host: config.host,
      port: config.port,
      staticDir: null,
      messagesPerMinute: config.wsMessagesPerMinute,
      serverVersion: APP_VERSION,
      tls: config.tls,
      insecureRemote: config.insecureRemote,
      allowedHosts: config.allowedHosts,
    });
    await server.listen();
  }
  const secretStore = overrides.secretStore ?? new OsKeyring();
  let ledger: ReturnType<typeof openHome>;
  let initialised: boolean;
  let releaseLock: () => void;
  try {
    // First run creates the home (what a person expects of a desktop app); an existing home whose
    // key is not in this keyring is still refused inside openHome.
    ledger = openHome(config.home, { create: true, keys: 'signer', secretStore, now: overrides.now, idleCheckpointMs: IDLE_CHECKPOINT_MS });
  } catch (error) {
    await server?.release();
    throw error;
  }
  try {
    initialised = recordInitialisation(ledger);
    releaseLock = acquireHomeLock(ledger.paths);
  } catch (error) {
    ledger.close();
    await server?.release();
    throw error;
  }
  const logger = overrides.logger ?? createFileLogger(ledger.paths.runtimeLog, (line) => process.stderr.write(`${line}\n`));
  // The write-ahead log is copied into the database by a worker thread, not by the commit that fills it on the event loop.
  const checkpointer = new WalCheckpointer(ledger.db, ledger.paths.database, { onFallback: (reason) => logger.warn(`WAL checkpoints back on the runtime thread: ${reason}`) });
  checkpointer.start();
  const notifier: Notifier = overrides.notifier ?? { notify: (n) => logger.info(`notification: ${n.title} — ${n.body}`) };
  const startedAt = new Date().toISOString();
  const events = new EventBus();
  const audit = ledger.audit;
  const signer = ledger.signer!;
  const standing = new StandingApprovalService(ledger.db, audit, signer, new KeyringStandingGrants(secretStore, config.home));
  // One signing path: tool calls and plans get their tokens from the same engine, each bound to its subject's hash.
  const approvalEngine = new ApprovalEngine({ db: ledger.db, audit, signer, ...(overrides.now ? { now: overrides.now } : {}) });
  // Tool pins are sealed state; pins from before seals are sealed once, by the first start after the upgrade.
  const pinSealer = toolPinSealer(ledger.seals);
  sealPinsFromBeforeSeals(new ToolPinRepository(ledger.db, pinSealer), ledger.seals);
  // One queue for every decision waiting for the person: the tray counts it, and pausing pauses every kind.
  // Learned slices wait in Review; ILP is composed further down, after the services it needs.
  let ilpProposals: SliceProposals | null = null;
  let memoryPromotions: MemoryPromotions | null = null;
  const decisions = new DecisionQueue({ audit, notifier, ...(overrides.now ? { now: overrides.now } : {}), sources: [new ToolChangeDecisions(ledger.db, audit, pinSealer), new IlpSliceDecisions(() => ilpProposals), new MemoryPromotionDecisions(() => memoryPromotions)] });
  const workItems = new SqliteWorkItemStore({ db: ledger.db, audit, ...(overrides.now ? { now: overrides.now } : {}) });
  const kinds = {
    toolCall: toolCallKind({ audit, standing, engine: approvalEngine }),
    // A plan whose id already ran to done is refused before its card: its signature could never be used.
    plan: planKind({ audit, issueToken: (item) => approvalEngine.issueToken(workItemSubject(item), { verdict: 'approved' }), planIds: { stored: (id) => workItems.get(id) } }),
  };
  // Each change reaches the cockpit sessions as a delta (added, updated, removed cards), never the whole queue (docs/review.md).
  decisions.subscribe((delta) => events.publish('review.changed', delta));
  // Silas itself (§5.1): conversations per session, plans to the same queue, work in the sandbox,
  // and the connected MCP servers through their proxies.
  const locations = overrides.clientLocations ?? currentLocationContext(process.env);
  const silas = composeStream({
    mcpServers: () => connectedServers(locations),
    mcpEnv: { ...stringEnv(process.env), SILAS_HOME: config.home },
    home: config.home,
    db: ledger.db,
    audit,
    events,
    signer,
    trustedKeys: () => ledger.trustedKeys(),
    secretStore,
    seals: ledger.seals,
    decisions,
    planKind: kinds.plan,
    ...(overrides.streamGates ? { systemGates: overrides.streamGates } : {}),
    ...(overrides.embedder ? { embedder: overrides.embedder } : {}),
    ...(overrides.contextBudget ? { contextBudget: overrides.contextBudget } : {}),
    onReviewChanged: () => decisions.refresh(),
    behaviorSignals: () => approvalSignals(audit.tail(2_000)),
    ...(overrides.sandboxManager ? { sandboxManager: overrides.sandboxManager } : {}),
    ...(overrides.now ? { now: overrides.now } : {}),
    onError: (message, error) => logger.error(message, error),
  });
  if (initialised) logger.info(`initialised ${config.home} with owner key ${ledger.ownerFingerprint}`);
  const info = (): RuntimeInfo => ({ version: APP_VERSION, mode: config.mode, home: config.home, ownerFingerprint: ledger.ownerFingerprint, startedAt, pid: process.pid });
  const servers = new ServersService(ledger.db, pinSealer);
  // The policies the cockpit edits: signed with the owner key, every version kept (docs/policy-editor.md).
  // Drafts, and the listing's policy files, are parsed in a worker thread: a policy near the cap takes hundreds of ms to parse (docs/policy-editor.md, Limits).
  const policyChecker = new PolicyChecker();
  const policies = new PolicyLibrary({
    versions: new PolicyVersionRepository(ledger.db),
    audit,
    signer,
    trustedKeys: () => ledger.trustedKeys(),
    seals: ledger.seals,
    knownPolicies: () => installationPolicies(locations, config.home),
    policiesDir: join(config.home, 'policies'),
    templates: templateGallery,
    judgeOffLoop: (path, text, keys) => policyChecker.judge(path, text, keys),
    ...(overrides.now ? { now: overrides.now } : {}),
  });
  // A home from before policies were anchored keeps its owner-signed policies in force, once.
  adoptPoliciesFromBeforeAnchors(installationPolicies(locations, config.home), ledger.trustedKeys(), ledger.seals);
  // Alignment (docs/alignment.md): every agent decision in the ledger becomes a verified AP-Trace.
  const alignment = composeAlignment({ db: ledger.db, audit, signer, trustedKeys: () => ledger.trustedKeys(), seals: ledger.seals, locations, notifier, ...(overrides.now ? { now: overrides.now } : {}) });
  // ILP (docs/ilp.md): specialists over the shipped slices on the same models as the Stream, the
  // owner's HOME/ilp.yaml (principles, forbidden translations, remote specialists); every composition to the ledger and the inspector.
  const ilpSecrets = new NamedSecrets(secretStore, { onWithheld: (refusal, origin) => ledger.seals.report(refusal, origin) });
  const ilp = composeIlp({ db: ledger.db, audit, seals: ledger.seals, home: config.home, secrets: ilpSecrets, model: (role) => silas.roleModels.client(role), sliceDirs: [shippedSlicesDir()], onSlicesChanged: () => decisions.refresh(), ...(overrides.now ? { now: overrides.now } : {}) });
  ilpProposals = ilp.proposals;
  memoryPromotions = silas.memory.service.promotionSource();
  const unpublishIlp = publishIlpCompositions(ilp.inspector, events);
  const trials = new PolicyTrials({ audit, environment: { homeDir: locations.home, cwd: process.cwd(), dataHome: config.home }, readPolicy: (path) => policies.read(path).text });
  // Wrap and unwrap happen only when the person asks; no shutdown path touches client configurations.
  const clients = new ClientsService({
    silasHome: config.home,
    audit,
    runtime: overrides.proxyRuntime ?? currentRuntime(),
    locations,
    ...(overrides.now ? { now: overrides.now } : {}),
  });
  // Verification runs in a worker thread with its own read-only connection: a 1M-entry chain
  // takes seconds, which the event loop serving the cockpit and the proxies cannot spare.
  const verifier = new ChainVerifier({
    dbFile: ledger.paths.database,
    repository: new AuditRepository(ledger.db),
    keys: keyringVerifierKeys(secretStore, config.home, ledger.signer),
    onProgress: (run) => events.publish('audit.verifyProgress', run),
    onFinished: (status) => events.publish('audit.verified', status),
    ...(overrides.now ? { now: overrides.now } : {}),
  });
  let watcher: AuditWatcher | null = null;
  let reviewRefresh: NodeJS.Immediate | null = null;

  let securityBudget = { windowStart: Date.now(), count: 0 };
  const recordSecurityEvent: SecurityEventSink = (event, data) => {
    logger.warn(`security: ${event}`, data);
    const t = Date.now();
    if (t - securityBudget.windowStart > 60_000) securityBudget = { windowStart: t, count: 0 };
    if (securityBudget.count >= SECURITY_EVENTS_PER_MINUTE) return;
    securityBudget.count += 1;
    // Each event's fields are checked against the catalogue when appended.
    audit.append(event, data as AuditEventData<typeof event>);
  };
  // Every call's access is checked in the router; refusals (a decision over the ask credential) are audited.
  // Who asked is stamped on each card from the asking session; the person's wrapped servers rank first (docs/review.md "Sources").
  const origins = new RequesterOrigins({ governed: governedServers(() => connectedServers(locations)) });
  // The cockpit credentials of this run, as digests: the start credential (printed once by
  // `silas start`) and one fresh credential per link (docs/control-plane.md "Getting back into the cockpit").
  const cockpitCredentials = new CockpitCredentials();
  // `silas open`: an owner-signed challenge gets a fresh cockpit link (headless) or brings the
  // desktop window forward (the IPC cockpit needs no credential, so none is minted there).
  const cockpitLinks = new CockpitLinks({
    home: config.home,
    trustedKeys: () => ledger.trustedKeys(),
    audit,
    credentials: cockpitCredentials,
    onRefused: (data) => recordSecurityEvent('control.cockpit_link_refused', data),
    target: () => {
      if (cockpit) return { kind: 'link', url: cockpit.url };
      return overrides.showCockpitWindow ? { kind: 'window', show: overrides.showCockpitWindow } : null;
    },
    ...(overrides.now ? { now: overrides.now } : {}),
  });
  const router = new ControlRouter(createHandlers({ audit, verifier, review: decisions, kinds, origins, servers, standing, clients, stream: silas.stream, models: silas.models, policies, trials, policyChecker, alignment: alignment.service, ilp: ilp.inspector, ilpLearning: ilp.learning, memory: silas.memory.service, memoryExports: silas.memory.exports, memoryImports: silas.memory.imports, cockpitLinks, runtimeInfo: info }), logger, recordSecurityEvent);

  let cockpit: CockpitEndpoint | null = null;
  let localSocket: LocalSocketTransport | null = null;
  let ilpSocket: IlpSocketServer | null = null;
  // Two credentials per start (DESIGN invariant 8). The ask credential goes to control.json for
  // proxies and CLI commands and opens only the local socket, which can ask but not decide. The
  // cockpit credential stays in memory: `silas start` prints it once, in the cockpit URL's fragment.
  const askToken = randomBytes(32).toString('base64url');
  const cockpitToken = cockpitCredentials.issue('start');
  let checkpointTimer: NodeJS.Timeout | null = null;
  let stopping: Promise<void> | null = null;

  const runtime: Runtime = {
    silasMemory: () => silas.memory,
    mode: config.mode,
    home: config.home,
    info,
    router,
    events,
    audit,
    decisions,
    get cockpit() {
      return cockpit;
    },

    async start() {
      audit.append('runtime.started', { mode: config.mode, pid: process.pid, version: APP_VERSION });
      silas.stream.start(silas.plans.resume(parseStoredWorkItem));
      silas.memory.schedule.start();
      // Created after our own start entry: a client can only connect later, and loads history itself.
      watcher = new AuditWatcher(
        audit,
        (entry) => {
          events.publish('audit.appended', entry);
          alignment.recorder.nudge();
          // A proxy (another process) recorded a changed tool definition: its card joins Review,
          // once per turn of the event loop however many arrive in a page (a refresh reads the pins).
          if ((entry.event === 'mcp.tool_changed' || entry.event === 'mcp.tool_held') && reviewRefresh === null) {
            reviewRefresh = setImmediate(() => {
              reviewRefresh = null;
              decisions.refresh();
            });
          }
        },
        config.auditPollMs,
      );
      watcher.start();
      // Catches up with decisions recorded while the runtime was stopped, a page per turn.
      alignment.recorder.nudge();
      checkpointTimer = setInterval(() => {
        try {
          audit.writeCheckpoint();
        } catch (error) {
          logger.error('scheduled audit checkpoint failed', error);
        }
      }, config.checkpointIntervalMs);
      checkpointTimer.unref();
      if (server) {
        // After install the cockpit may not be built yet; every documented start serves it, so the README's `npm start` opens a working cockpit.
        if (!servableCockpitDir(config.cockpitDir) && config.cockpitDir && overrides.cockpitBuilder) {
          try {
            await overrides.cockpitBuilder.build(config.cockpitDir);
          } catch (error) {
            logger.warn(`could not build the cockpit: ${(error as Error).message}`);
          }
        }
        const staticDir = servableCockpitDir(config.cockpitDir);
        if (!staticDir) logger.warn('the cockpit is not built; run `npm run build:cockpit` to serve it');
        const address = await server.start({
          credentials: cockpitCredentials,
          router,
          events,
          onSecurityEvent: recordSecurityEvent,
          staticDir,
          storeSecret: (name, value) => silas.models.storeSecret(name, value, 'https-secure-input'),
          ilp: ilp.service,
          ilpToken: askToken,
          queuePressure: () => silas.stream.pressure(),
        });
        cockpit = { url: address.url, wsUrl: address.wsUrl, token: cockpitToken };
      }
      localSocket = new LocalSocketTransport({
        path: ledger.paths.controlSocket,
        token: askToken,
        router,
        events,
        messagesPerMinute: config.wsMessagesPerMinute,
        serverVersion: APP_VERSION,
        onSecurityEvent: recordSecurityEvent,
      });
      await localSocket.start();
      // ILP's own framing, for local programs (`silas ilp send`): the same ask credential, the owner's socket.
      ilpSocket = new IlpSocketServer({ path: ledger.paths.ilpSocket, token: askToken, handler: ilp.service });
      await ilpSocket.start();
      writeControlFile(ledger.paths.controlFile, { url: cockpit?.url ?? null, wsUrl: cockpit?.wsUrl ?? null, socket: ledger.paths.controlSocket, token: askToken, pid: process.pid });
      logger.info(`runtime started (${config.mode}) on ${config.home}`);
      void notifier;
    },

    stop(reason: string) {
      stopping ??= (async () => {
        logger.info(`runtime stopping: ${reason}`);
        server?.stopAccepting();
        // Plans still waiting are left to be asked again after the restart, not recorded as declined.
        silas.plans.beginShutdown();
        decisions.declineAll('the Silas control center is shutting down');
        // Turns are stopped and running work told to stop before the ledger they write to closes.
        silas.plans.stopAll();
        await silas.stream.stop();
        await silas.plans.idle();
        silas.memory.schedule.stop();
        silas.memory.exports.close();
        silas.memory.imports.close();
        await silas.memory.semantic.stop();
        try {
          events.publish('runtime.stopping', { reason });
        } catch (error) {
          logger.error('publishing runtime.stopping failed', error);
        }
        if (checkpointTimer) clearInterval(checkpointTimer);
        try {
          audit.append('runtime.stopped', { reason });
          audit.writeCheckpoint();
        } catch (error) {
          logger.error('final audit entry or checkpoint failed', error);
        }
        await verifier.close();
        await policyChecker.close();
        watcher?.poll();
        watcher?.stop();
        alignment.recorder.stop();
        if (reviewRefresh) clearImmediate(reviewRefresh);
        await server?.close('runtime shutting down');
        await localSocket?.close();
        await ilpSocket?.close();
        unpublishIlp();
        ilp.close();
        rmSync(ledger.paths.controlFile, { force: true });
        await checkpointer.stop();
        ledger.close();
        releaseLock();
        logger.info('runtime stopped');
      })();
      return stopping;
    },
  };
  return runtime;
}

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

/** A work item the Stream kept for a restart, or null when it no longer parses (a newer app wrote it). */
function parseStoredWorkItem(json: string): WorkItem | null {
  try {
    const parsed = WorkItem.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The built cockpit to serve, or null when `dir` holds no build. */
function servableCockpitDir(dir: string | null): string | null {
  return dir && existsSync(join(dir, 'index.html')) ? dir : null;
}

/**
 * control.json tells local clients where the runtime is. Its token is the ask credential only;
 * still 0600 from birth, so other users cannot even ask.
 */
function writeControlFile(file: string, content: { url: string | null; wsUrl: string | null; socket: string; token: string; pid: number }): void {
  rmSync(file, { force: true });
  writeFileSync(file, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
}
