import { randomBytes } from 'node:crypto';
import nacl from 'tweetnacl';
import { opsPerSecond, report } from '../testing/bench.js';
import { OwnerKeyVault } from './owner-key.js';
import { MemorySecretStore } from './secret-store.js';

// Same message, same key material for both libraries, measured in one run so the ratio is
// meaningful on a shared, noisy machine.
const signer = new OwnerKeyVault(new MemorySecretStore(), 'bench').ensure().signer;
const message = randomBytes(128);
const naclPair = nacl.sign.keyPair();
const ourSignature = signer.sign(message);
const naclSignature = nacl.sign.detached(message, naclPair.secretKey);

const nodeSign = opsPerSecond(() => signer.sign(message));
const nodeVerify = opsPerSecond(() => signer.verify(message, ourSignature));
const naclSign = opsPerSecond(() => nacl.sign.detached(message, naclPair.secretKey), 1500);
const naclVerify = opsPerSecond(() => nacl.sign.detached.verify(message, naclSignature, naclPair.publicKey), 1500);

report('ed25519.sign.node_crypto', 'ops/s', nodeSign.opsPerSec, { message_bytes: 128 });
report('ed25519.verify.node_crypto', 'ops/s', nodeVerify.opsPerSec, { message_bytes: 128 });
report('ed25519.sign.tweetnacl', 'ops/s', naclSign.opsPerSec, { message_bytes: 128 });
report('ed25519.verify.tweetnacl', 'ops/s', naclVerify.opsPerSec, { message_bytes: 128 });
report('ed25519.sign.speedup_vs_tweetnacl', 'ratio', nodeSign.opsPerSec / naclSign.opsPerSec);
report('ed25519.verify.speedup_vs_tweetnacl', 'ratio', nodeVerify.opsPerSec / naclVerify.opsPerSec);
