// What sealing costs (docs/architecture.md §2 "Sealed state"): sealing at write and checking at
// read, for values from 1 KB to 4 MB, with the ledger key's MAC and with the owner's signature,
// each beside the floor of reading the same value unsealed (JSON.parse of its text) from the same
// run. Growth matters more than one size: a check must stay a small multiple of the parse it
// accompanies as values grow.
import { randomBytes } from 'node:crypto';
import { medianUs, report } from '../testing/bench.js';
import { parseLedgerKeyRecord } from './ledger-key.js';
import { OwnerKeyVault } from './owner-key.js';
import { StateSeals } from './sealed-state.js';
import { MemorySecretStore } from './secret-store.js';

const secrets = new MemorySecretStore();
const owner = new OwnerKeyVault(secrets, 'bench-owner').ensure().signer;
const ledger = parseLedgerKeyRecord(JSON.stringify({ v: 1, alg: 'hmac-sha256', key: randomBytes(32).toString('base64'), keyed_from: 0 }), 'bench-ledger').chain;
const seals = new StateSeals({ keys: { owner: () => owner, ledger: () => ledger }, anchors: { store: secrets, absoluteHome: '/bench' } });

/** A value shaped like sealed state (rows of short fields) whose JSON text is about `bytes` long. */
function valueOf(bytes: number): unknown {
  const row = { id: 'wi-00000000', status: 'proposed', scope: 'owner', summary: 'read the notes and summarise them', taint: 'owner' };
  const rowBytes = JSON.stringify(row).length + 1;
  return { rows: Array.from({ length: Math.max(1, Math.round(bytes / rowBytes)) }, (_, i) => ({ ...row, id: `wi-${String(i).padStart(8, '0')}` })) };
}

for (const bytes of [1_024, 16_384, 262_144, 4_194_304]) {
  const value = valueOf(bytes);
  const text = JSON.stringify(value);
  const runs = bytes >= 1_000_000 ? 9 : bytes >= 100_000 ? 31 : 201;
  const floorUs = medianUs(() => JSON.parse(text), runs);
  for (const authority of ['ledger', 'owner'] as const) {
    const seal = seals.seal(authority, 'stream-work', 'bench', value);
    const sealUs = medianUs(() => seals.seal(authority, 'stream-work', 'bench', value), runs);
    const checkUs = medianUs(() => seals.verify(authority, 'stream-work', 'bench', value, seal), runs);
    report(`sealed_state.${authority}_check_${bytes}B`, 'us', checkUs, { bytes: text.length, seal_us: Number(sealUs.toFixed(1)), floor_unsealed_read_json_parse_us: Number(floorUs.toFixed(1)), ratio_to_floor: Number((checkUs / floorUs).toFixed(2)) });
  }
  seals.anchor('models', 'bench', value);
  const anchoredUs = medianUs(() => seals.checkAnchored('models', 'bench', value), runs);
  report(`sealed_state.anchored_check_${bytes}B`, 'us', anchoredUs, { bytes: text.length, keyring: 'in-memory stand-in (a Secret Service read adds ~0.2-1 ms)', floor_unsealed_read_json_parse_us: Number(floorUs.toFixed(1)), ratio_to_floor: Number((anchoredUs / floorUs).toFixed(2)) });
}
