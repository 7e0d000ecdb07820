import type { ApprovalToken } from '../../src-shared/silas/approval.js';
import type { WorkItem } from '../../src-shared/silas/work.js';
import { ApprovalEngine } from '../silas/approval/engine.js';
import { planHash } from '../silas/work/hashes.js';
import { cliSecretStore, type SecretStore } from './cli-keyring.js';
import { openLedger } from './ledger.js';

/**
 * `silas chat --approve-here`: the person approves a plan at the terminal, as with `silas run
 * --approve-here`. The token is signed here with the home's owner key from the OS keyring and
 * recorded in the ledger (`silas.approval.issued`, `silas.run.approval_confirmed`); the runtime
 * only passes it to the executor, which verifies the signature and the plan hash and consumes it.
 */
export function terminalPlanApprover(home: string, secretStore: SecretStore | undefined): (item: WorkItem) => ApprovalToken {
  return (item) => {
    const ledger = openLedger(home, { create: false, keys: 'signer', secretStore: cliSecretStore(secretStore) });
    try {
      const engine = new ApprovalEngine({ db: ledger.db, audit: ledger.audit, signer: ledger.signer ?? undefined });
      const token = engine.issueToken(item, { verdict: 'approved' });
      ledger.audit.append('silas.run.approval_confirmed', { work_item_id: item.id, plan_hash: planHash(item), source: 'terminal (silas chat)' });
      return token;
    } finally {
      ledger.close();
    }
  };
}
