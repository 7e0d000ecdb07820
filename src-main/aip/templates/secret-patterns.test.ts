import { createHmac, generateKeyPairSync, randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DlpEngine } from '../dlp/engine.js';
import { bitcoinAddress, cardNumber, ethereumAddress, mnemonic, segwitAddress, wifKey } from '../dlp/verify/testing/encode.js';
import { loadPolicyText } from '../policy/load.js';
import { readTemplate } from './catalog.js';

// The shipped secret patterns (the default template's dlp block), loaded as a policy's dlp block by the real
// loader and run by the real DLP engine with their checks: each finds its own kind of secret, in
// the shapes people write it, and leaves alone the look-alikes (hashes, ids, samples, prose). All
// values are made up here (random, or built to a format); none is a real credential.

function engine(): DlpEngine {
  const loaded = loadPolicyText(readTemplate('default').policyText);
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => `${e.line}:${e.column} ${e.message}`).join('\n'));
  return new DlpEngine(loaded.policy.dlp!);
}

const dlp = engine();

/** The names of the patterns that match something in `text`, sent or returned (wallet addresses are judged only when sent). */
function found(text: string): string[] {
  const rules = [...dlp.scanText(text, 'request').events, ...dlp.scanText(text, 'response').events].map((e) => e.rule);
  return [...new Set(rules)];
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
let seed = 0x9e3779b9;
/** `length` pseudo-random characters of `alphabet`, the same every run (a rare low-entropy draw must not flake a test). */
function random(length: number, alphabet = ALNUM): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    out += alphabet[(seed >>> 0) % alphabet.length];
  }
  return out;
}
const base64url = (text: string): string => Buffer.from(text).toString('base64url');

function jwt(payload: object, signed = true): string {
  const head = base64url(JSON.stringify({ alg: signed ? 'HS256' : 'none', typ: 'JWT' }));
  const body = base64url(JSON.stringify(payload));
  const signature = signed ? createHmac('sha256', randomBytes(32)).update(`${head}.${body}`).digest('base64url') : '';
  return `${head}.${body}.${signature}`;
}

function pemBlock(label: string, body = randomBytes(600).toString('base64')): string {
  return `-----BEGIN ${label}-----\n${body.replace(/(.{64})/g, '$1\n')}\n-----END ${label}-----`;
}

/** A 1×1 PNG as a data URI, built here. */
function pngDataUri(): string {
  const chunk = (type: string, data: Buffer): Buffer => Buffer.concat([Buffer.alloc(4, 0), Buffer.from(type), data, Buffer.alloc(4, 0)]);
  const header = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0]);
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(Buffer.from([0, 255, 0, 0, 255]))), chunk('IEND', Buffer.alloc(0))]);
  return `data:image/png;base64,${png.toString('base64')}`;
}

const awsSecret = (): string => random(40, `${ALNUM}/+`);

/** Per pattern: texts it must redact, and look-alikes it must leave alone. */
const CASES: Record<string, { positive: string[]; negative: string[] }> = {
  'AWS access key': {
    positive: [`aws_access_key_id = AKIA${random(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}`, `"AccessKeyId": "ASIA${random(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}"`],
    negative: [`AKIA${random(16, 'abcdefghijklmnopqrstuvwxyz')}`, `AKIA${random(15, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ')}`],
  },
  'AWS secret access key': {
    positive: [`AWS_SECRET_ACCESS_KEY=${awsSecret()}`, `aws_secret_access_key = ${awsSecret()}`, `{"SecretAccessKey": "${awsSecret()}"}`, `export MY_APP_AWS_SECRET_ACCESS_KEY="${awsSecret()}"`, `--aws-secret-access-key ${awsSecret()}`],
    negative: [`AWS_SECRET_ACCESS_KEY=${'x'.repeat(40)}`, `aws_secret_access_key = ${'abcdefghij'.repeat(4)}`, `AWS_SECRET_ACCESS_KEY=${'A'.repeat(40)}`, `aws_secret_access_key = \${AWS_SECRET_ACCESS_KEY}`],
  },
  'GitHub token': {
    positive: [`ghp_${random(36)}`, `token gho_${random(34)}`, `ghu_${random(30)}`, `ghs_${random(40)}`, `ghr_${random(76)}`, `ghp_${random(255)}`, `github_pat_${random(22)}_${random(59)}`],
    negative: [`ghp_${'x'.repeat(36)}`, `ghp_${'X'.repeat(40)}`, `ghp_${random(29)}`, 'ghp_YOUR_GITHUB_TOKEN_GOES_HERE_12345', `github_pat_${'x'.repeat(82)}`],
  },
  'JSON Web Token': {
    positive: [`Authorization: Bearer ${jwt({ sub: 'user-4821', iat: 1_700_000_000, scope: 'repo:read' })}`, `?session=${jwt({ uid: 77, role: 'admin' })}&x=1`, jwt({ sub: 'svc', aud: 'internal' }, false)],
    negative: ['eyJhbGciOiJIUzI1NiJ9 alone', `eyJ${'x'.repeat(12)}.eyJ${'x'.repeat(12)}.${'x'.repeat(12)}`, 'eyJ.eyJ.sig'],
  },
  'Private key': {
    positive: [
      generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
      generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'sec1', format: 'pem' }).toString(),
      generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'pw' }).toString(),
      pemBlock('DSA PRIVATE KEY'),
      pemBlock('OPENSSH PRIVATE KEY'),
      pemBlock('PGP PRIVATE KEY BLOCK'),
      `key file, cut short:\n-----BEGIN RSA PRIVATE KEY-----\n${random(64)}`,
    ],
    negative: [pemBlock('PUBLIC KEY'), pemBlock('CERTIFICATE'), 'PRIVATE KEY files live in ~/.ssh', '-----BEGIN PRIVATE KEYS-----'],
  },
  'Slack token': {
    positive: [`xoxb-${random(12, '0123456789')}-${random(13, '0123456789')}-${random(24)}`, `xoxp-${random(12, '0123456789')}-${random(12, '0123456789')}-${random(32, '0123456789abcdef')}`, `xapp-1-A${random(10)}-${random(13, '0123456789')}-${random(64, '0123456789abcdef')}`],
    negative: [`xoxb-${'x'.repeat(10)}-${'x'.repeat(24)}`, 'xoxb-12345', 'xoxo-and-hugs-from-everyone'],
  },
  'Slack webhook': {
    positive: [`https://hooks.slack.com/services/T${random(8, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789')}/B${random(10, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789')}/${random(24)}`],
    negative: [`https://hooks.slack.com/services/${'X'.repeat(9)}/${'X'.repeat(11)}/${'X'.repeat(24)}`, 'https://hooks.slack.com/services/'],
  },
  'Stripe key': {
    positive: [`sk_live_${random(24)}`, `rk_live_${random(99)}`, `STRIPE=sk_test_${random(24)}`],
    negative: [`sk_live_${'x'.repeat(24)}`, `sk_live_${random(10)}`, `pk_live_${random(24)}`, 'sk_test_0000000000000000000000000'],
  },
  'OpenAI or Anthropic API key': {
    positive: [`sk-proj-${random(48, `${ALNUM}_-`)}`, `sk-ant-api03-${random(93, `${ALNUM}_-`)}AA`, `sk-${random(48)}`],
    negative: [`sk-${'x'.repeat(48)}`, 'task-management-service-configuration', 'risk-assessment-for-the-quarterly-report', 'sk-your-api-key-goes-in-this-place', `sk-${random(12)}`],
  },
  'Google API key': {
    positive: [`key=AIza${random(35, `${ALNUM}_-`)}`],
    negative: [`AIza${'x'.repeat(35)}`, `AIza${random(20)}`],
  },
  'Password in a connection string': {
    positive: [`postgres://app_user:${random(16)}@db.internal:5432/app`, `mongodb+srv://admin:${random(20)}@cluster0.example.net/db`, `redis://:${random(24)}@cache:6379`, `https://deploy:${random(20)}@git.example.com/o/r.git`],
    negative: ['postgres://user:password@localhost:5432/db', 'mysql://root:${MYSQL_PASSWORD}@db:3306', 'https://example.com:8443/path', 'redis://:pw@cache', 'amqp://guest:guest@localhost', 'postgres://postgres:<password>@localhost'],
  },
  'Secret assignment': {
    positive: [`DB_PASSWORD=T7k#pQ2zL9vX`, `"client_secret": "${random(24)}"`, `session_token: ${random(32)}`, `export SENTRY_API_KEY=${randomBytes(16).toString('hex')}`, `jwt_private_key='${random(40)}'`, `passwd=${random(12)}`],
    negative: [
      'PASSWORD=changeme',
      'api_key = os.environ.get("API_KEY")',
      'password: ${{ secrets.DB_PASSWORD }}',
      '"token": "expired"',
      '"token_type": "bearer_refreshable"',
      'max_tokens=4096000000',
      'DB_PASSWORD=<your password here>',
      'SECRET_KEY=your-secret-key-here',
      '"password": "********"',
      'token: invalid_signature_for_request',
      'The access token has expired. Please refresh your token.',
    ],
  },
  'Ethereum address': {
    positive: [`send to ${ethereumAddress()} today`, `0x${randomBytes(20).toString('hex')}`],
    negative: [`0x${'0'.repeat(40)}`, `0x${'dead'.repeat(10)}`, `0x${randomBytes(21).toString('hex')}`],
  },
  'Bitcoin address': {
    positive: [`pay ${bitcoinAddress(0x00)}`, bitcoinAddress(0x05)],
    negative: ['1MadeUpAddressForTestsXyzabcdefgh', '3NotReaLAddress4TestsXyzabcdefghjk', `1${'1'.repeat(33)}`],
  },
  'Bitcoin bech32 address': {
    positive: [segwitAddress('bc', 0, randomBytes(20)), segwitAddress('bc', 1, randomBytes(32)), segwitAddress('tb', 0, randomBytes(32)).toUpperCase()],
    negative: ['bc1qmadeupaddressfortestsnotreal0000000', `bc1q${'q'.repeat(38)}`, 'abc1qwertyuiopasdfghjkl'],
  },
  'Bitcoin private key (WIF)': {
    positive: [wifKey(false), `key: ${wifKey(true)}`],
    negative: ['5MadeUpWifKeyForTestsXyzabcdefghijkmnpqrstuvwxyz123', 'KMadeUpCompressedWifForTestsXyzabcdefghijkmnpqrstuvw'],
  },
  'Seed phrase (BIP-39)': {
    positive: [mnemonic(randomBytes(16)), `my recovery words:\n${mnemonic(randomBytes(32))}\nkeep safe`, `"mnemonic": "${mnemonic(randomBytes(20))}"`],
    negative: [
      'please send the quarterly report to the finance team before friday noon',
      'we walked along the river and watched the boats drift slowly past the old mill',
      'abandon ability able about above absent absorb abstract absurd abuse access accident',
    ],
  },
  'Payment card number': {
    positive: [cardNumber('4', 16), cardNumber('5', 16).replace(/(\d{4})(?=\d)/g, '$1 '), cardNumber('2', 16).replace(/(\d{4})(?=\d)/g, '$1-'), cardNumber('37', 15).replace(/^(\d{4})(\d{6})(\d{5})$/, '$1 $2 $3'), cardNumber('6', 19)],
    negative: ['order 4000123456789011 shipped', 'invoice 5123-4567-8901-2345', '0000 0000 0000 0000', 'tracking 1Z999AA10123456784', `id ${cardNumber('9', 16)}`],
  },
};

/** Look-alikes no pattern may touch. */
const UNTOUCHED = [
  `request ${'550e8400-e29b-41d4-a716-446655440000'.replace(/[0-9a-f]/g, () => random(1, '0123456789abcdef'))} done`,
  `sha256:${randomBytes(32).toString('hex')}`,
  `sha1 ${randomBytes(20).toString('hex')}`,
  `commit ${randomBytes(20).toString('hex')}\nAuthor: Dev <dev@example.com>`,
  `Merge ${randomBytes(4).toString('hex')} into main`,
  pngDataUri(),
  'The meeting has been moved to next week because several people are travelling abroad.',
  'Remember to water the garden plants every morning while we are away on holiday.',
  'order #4000 1234 5678 9011 and order #5123-4567-8901-2345',
  `0x${'0'.repeat(40)}`,
  `AKIA${'abcdefghijklmnop'}`,
  `ghp_${'x'.repeat(36)}`,
  'Accept: */*',
  'api_key = os.environ.get("API_KEY")\ndb_url = os.environ["DATABASE_URL"]',
];

describe('secret-patterns.yaml', () => {
  it('loads as a policy dlp block, every pattern named, half of them or more with a check', () => {
    const names = dlp.config.patterns.map((p) => p.name);
    expect([...new Set(names)].sort()).toEqual(Object.keys(CASES).sort());
    expect(dlp.config.patterns.filter((p) => p.verify !== null).length).toBeGreaterThanOrEqual(names.length / 2);
  });

  for (const [name, { positive, negative }] of Object.entries(CASES)) {
    it(`${name}: finds its secrets`, () => {
      for (const text of positive) expect(found(text), text).toContain(name);
    });
    it(`${name}: leaves its look-alikes`, () => {
      for (const text of negative) expect(found(text), text).not.toContain(name);
    });
  }

  it('leaves ids, digests, commit ids, images, prose and placeholders untouched', () => {
    for (const text of UNTOUCHED) expect(found(text), text).toEqual([]);
  });

  it('redacts a token inside a connection string under one of the two names', () => {
    const output = dlp.scanText(`git remote add origin https://x-access-token:ghs_${random(36)}@github.com/o/r.git`, 'response').output;
    expect(output).not.toMatch(/ghs_/);
  });

  it('finds a key id split across two fields of a message', () => {
    const id = `AKIA${random(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}`;
    const result = dlp.scanRequest({ provider: 'aws', access_key: id.slice(0, 12), key_suffix: id.slice(12), region: 'us-east-1' });
    expect(result.events.map((e) => e.rule)).toEqual(['AWS access key']);
  });

  it('redacts a private key whole, not only its first line', () => {
    const block = pemBlock('OPENSSH PRIVATE KEY');
    const output = dlp.scanText(`before\n${block}\nafter`, 'response').output;
    expect(output).toBe('before\n[REDACTED:Private key]\nafter');
  });
});

describe('what comes back and what is sent are judged apart', () => {
  // A documentation page the agent fetched: AWS's published sample pair and a public address.
  const page = 'Configure the CLI with the sample pair: aws_access_key_id = AKIAIOSF0DNN7EXAMPLE, aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCY0EXAMPLEKEY. The first block paid 1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2.';
  it('a documented sample and a wallet address in a fetched page are left as they are', () => {
    expect(dlp.redactResponse({ content: [{ type: 'text', text: page }] }).redacted).toBe(false);
  });
  it('the same sample and address leaving in a request are refused', () => {
    const scan = dlp.scanRequest({ url: 'https://collector.example.net/c', body: page });
    expect(scan.action).toBe('block');
    expect(scan.events.map((e) => e.rule).sort()).toEqual(['AWS access key', 'AWS secret access key', 'Bitcoin address']);
  });
  it('a real-looking key in what comes back is still redacted', () => {
    expect(found('aws_access_key_id = AKIA2E0A8F3B244C9986')).toEqual(['AWS access key']);
  });
});
