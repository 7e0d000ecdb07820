import type { ApprovalToken } from '../../src-shared/silas/approval.js';
import type { WorkItem } from '../../src-shared/silas/work.js';
import type { ModelRole, RoleModelConfig } from '../../src-shared/llm/config.js';
import type { RecordedCall } from '../aip/trial/trial.js';
import { recordedCallsFrom } from '../aip/trial/recorded.js';
import { ApprovalEngine } from '../approval/engine.js';
import { homePaths } from '../home/paths.js';
import { NamedSecrets } from '../keys/named-secrets.js';
import type { SecretStore } from '../keys/secret-store.js';
import type { ProbeResult } from '../llm/probe.js';
import { loadSealedModels, MODELS_SEAL_ID, saveSealedModels, type SealedModels } from '../llm/sealed-models.js';
import { planHash } from '../silas/work/hashes.js';
import { loadIlpConfig, saveIlpConfig, type LoadedIlpConfig } from '../ilp/config/sealed-ilp-config.js';
import type { IlpConfigProblem } from '../ilp/config/ilp-config.js';
import { createHash } from 'node:crypto';
import { workItemSubject } from '../silas/work/plan-subjects.js';
import { openDatabase, quickCheck } from '../store/database.js';
import { openHome as openDataHome, recordInitialisation, type Ledger, type OpenHomeOptions } from './home.js';
import { closeDatabase } from '../store/transaction.js';
import { SqliteMemoryPortability, type MemoryPortability } from '../silas/memory/portability.js';

// The database side of the CLI context (app/cli-context.ts): everything here loads SQLite, so it
// is imported only when a command asks for it. The command holds no database handle of its own
// (docs/architecture.md §3).

export type { Ledger };

/**
 * The home's ledger for one `silas models` command: its seals check and make models.json's seal
 * (docs/silas/models.md), and what is refused is recorded in it. `verify` opens it for reading
 * (`show`), without requiring the keyring.
 */
export interface ModelsLedger {
  load(options?: { report?: boolean }): SealedModels;
  save(raw: Record<string, unknown>): ReturnType<typeof saveSealedModels>;
  /** The person's acceptance that models.json is gone: the keyring's anchor is removed. */
  forget(): void;
  /** Secrets whose refusals to release a key to an origin are recorded in this ledger. */
  secrets: NamedSecrets;
  /** `silas models test`: one call through llm/probe.ts with these secrets; a withheld key is recorded in the ledger. */
  probe(role: ModelRole, config: RoleModelConfig): Promise<ProbeResult>;
  close(): void;
}

/** HOME/ilp.yaml for `silas ilp config` (docs/ilp.md "Configuration"): read and checked, or applied with the owner key and recorded. */
export interface IlpConfigLedger {
  load(): LoadedIlpConfig;
  apply(text: string): { ok: true; path: string } | { ok: false; problems: IlpConfigProblem[] };
  close(): void;
}

/** The home's memory for `silas memory export|import` (docs/silas/memory-portability.md), on the keyring's keys. */
export interface MemoryLedger {
  portability: MemoryPortability;
  close(): void;
}

export interface CliDatabase {
  /** The home's ledger (docs/architecture.md §1 "CLI commands"), on the context's keyring. */
  openHome(options: Pick<OpenHomeOptions, 'create' | 'keys'>): Ledger;
  /** `silas init`: records who now owns a new home; false when nothing was new. */
  recordInitialisation(ledger: Ledger): boolean;
  /** SQLite's quick_check of an open ledger's database: 'ok', or what is damaged. */
  integrity(ledger: Ledger): string;
  /**
   * The same check on the home's database opened without the keyring, for when the keyring is out
   * of reach: only the file is checked, nothing read from it is trusted. Throws when it cannot be
   * opened (missing, newer than this Silas, not a Silas database), with the reason.
   */
  fileIntegrity(): string;
  /**
   * `silas chat --approve-here`: the person approves a plan at the terminal, as with `silas run
   * --approve-here`. The token is signed here with the home's owner key from the OS keyring and
   * recorded in the ledger (`silas.approval.issued`, `silas.run.approval_confirmed`); the runtime
   * only passes it to the executor, which verifies the signature and the plan hash and consumes it.
   */
  planApprover(): (item: WorkItem) => ApprovalToken;
  openModels(keys: 'signer' | 'verify'): ModelsLedger;
  openIlpConfig(keys: 'signer' | 'verify'): IlpConfigLedger;
  /** Both directions need the keyring: rows are read through their seals, written sealed, and recorded. */
  openMemory(): MemoryLedger;
  /** `silas policy replay`'s read of the ledger. */
  recordedCalls(server: string, last: number): { calls: RecordedCall[]; scanned: number };
}

export function cliDatabase(home: string, secretStore: SecretStore): CliDatabase {
  const openHome = (options: Pick<OpenHomeOptions, 'create' | 'keys'>) => openDataHome(home, { ...options, secretStore });
  return {
    openHome,
    recordInitialisation,
    integrity: (ledger) => quickCheck(ledger.db),
    fileIntegrity() {
      const { db } = openDatabase(homePaths(home).database, { create: false, home });
      try {
        return quickCheck(db);
      } finally {
        closeDatabase(db);
      }
    },
    planApprover: () => (item) => {
      const ledger = openHome({ create: false, keys: 'signer' });
      try {
        const engine = new ApprovalEngine({ db: ledger.db, audit: ledger.audit, signer: ledger.signer ?? undefined });
        const token = engine.issueToken(workItemSubject(item), { verdict: 'approved' });
        ledger.audit.append('silas.run.approval_confirmed', { work_item_id: item.id, plan_hash: planHash(item), source: 'terminal (silas chat)' });
        return token;
      } finally {
        ledger.close();
      }
    },
    openModels(keys) {
      const ledger = openHome({ create: false, keys });
      const seals = ledger.seals;
      const secrets = new NamedSecrets(secretStore, { onWithheld: (refusal, origin) => seals.report(refusal, origin) });
      return {
        load: (options) => loadSealedModels(home, seals, options),
        save: (raw) => saveSealedModels(home, raw, seals),
        forget: () => seals.anchor('models', MODELS_SEAL_ID, null),
        secrets,
        probe: async (role, config) => (await import('../llm/probe.js')).probeModel(role, config, secrets),
        close: () => ledger.close(),
      };
    },
    openIlpConfig(keys) {
      const ledger = openHome({ create: false, keys });
      return {
        load: () => loadIlpConfig(home, ledger.seals, { report: false }),
        apply(text) {
          const saved = saveIlpConfig(home, text, ledger.seals);
          if (!saved.ok) return saved;
          const { config } = saved;
          ledger.audit.append('ilp.config_applied', {
            sha256: createHash('sha256').update(text, 'utf8').digest('hex'),
            principles: config.principles.map((p) => p.id),
            forbidden_translations: config.forbidden_translations.length,
            specialists: config.specialists.map((s) => s.id),
          });
          return { ok: true, path: saved.path };
        },
        close: () => ledger.close(),
      };
    },
    openMemory() {
      const ledger = openHome({ create: false, keys: 'signer' });
      return { portability: new SqliteMemoryPortability({ db: ledger.db, seals: ledger.seals, audit: ledger.audit }), close: () => ledger.close() };
    },
    recordedCalls(server, last) {
      const ledger = openHome({ create: false, keys: 'verify' });
      try {
        return recordedCallsFrom(ledger.audit, server, last);
      } finally {
        ledger.close();
      }
    },
  };
}
