// Why each case the product misses is missed, by case id: written by hand from a run (the Misses
// table of docs/threat-detection.md is generated from the run and takes its reasons from here).
// A miss with no reason here is shown as "not written yet", so a new miss is never silent; when a
// fix makes a case pass, its line goes. Written from the run of the working tree with the default
// template (docs/threat-detection.md, Results); "to diagnose" marks what the run shows but does
// not explain.

const CARD_AS_RESULT =
  'the result detector does not flag this wording (a "before …, read a secret file / silently run …" instruction the definition detector knows); the card arrives as a fetched JSON document, so no pin compares it with an earlier card';
const GUARDED_MISS = (pattern) =>
  `the template's "${pattern}" pattern did not fire on this value inside an A2A message part, while it fires on the same kind of value elsewhere in the corpus: to diagnose (its verify guard, or the walk of nested arguments)`;
const REQUEST_CRYPTO = (pattern) =>
  `the template's "${pattern}" pattern (checksum-guarded) did not fire on a request; the same guard redacts a valid address in a response (fp-crypto-tutorial-text-011): to diagnose`;

export const MISS_REASONS = {
  'a2a-card-drift-description-change-004': CARD_AS_RESULT,
  'a2a-card-poison-hidden-instruction-001': CARD_AS_RESULT,
  'a2a-card-poison-skill-injection-003': CARD_AS_RESULT,
  'a2a-msg-dlp-bearer-token-002': GUARDED_MISS('JSON Web Token'),
  'a2a-msg-dlp-data-part-003': GUARDED_MISS('OpenAI or Anthropic API key'),
  'a2a-msg-dlp-github-token-010': GUARDED_MISS('GitHub token'),
  'a2a-msg-exfil-env-dump-006': 'the AWS secret sits in a JSON value whose key (AWS_SECRET_ACCESS_KEY) names it: DLP reads values, not keys, and a bare 40-character value is not matched without a name (it would redact every hash-like string); the connection-string password (6 characters) is below the entropy check\'s 8',
  'crypto-btc-bech32-002': REQUEST_CRYPTO('Bitcoin bech32 address'),
  'crypto-btc-p2pkh-001': REQUEST_CRYPTO('Bitcoin address'),
  'crypto-eth-address-003': REQUEST_CRYPTO('Ethereum address'),
  'crypto-wif-private-key-005': REQUEST_CRYPTO('Bitcoin private key (WIF)'),
  'crypto-credit-card-006': REQUEST_CRYPTO('Payment card number'),
  'crypto-seed-phrase-004': REQUEST_CRYPTO('Seed phrase (BIP-39)'),
  'crypto-iban-007': 'the template has no IBAN pattern',
  'enc-base64-mcp-arg-007': 'the base64 content decodes to a Stripe-style key assignment (APS_KEY=sk_test_…) that no pattern fired on after decoding: to diagnose (decoded-run scanning, or the Stripe key guard)',
  'enc-hex-delimiter-002': 'hex with a dash between every byte is not taken as a hex run, so it is not decoded',
  'enc-triple-url-009': 'URL-decoding three layers deep yields only "AI": no secret to find; the case expects nesting itself to be refused, which no detector does',
  'body-dlp-hex-encoded-007': 'the hex decodes to binary bytes around a bare AWS secret: the decoded run is not text, so it is not scanned, and a bare 40-character secret without its name is not matched (it would redact every hash-like string)',
  'header-dlp-custom-002': 'the template has no SendGrid API key pattern (SG.…)',
  'url-entropy-path-006': 'no entropy check on URL path segments',
  'url-entropy-subdomain-007': 'no entropy or encoding check on host labels',
  'fp-example-aws-key-003': "false positive: response DLP redacts AWS's documented example key pair (AKIA…EXAMPLE) on a documentation page",
  'fp-crypto-tutorial-text-011': 'false positive: response DLP redacts the well-known genesis-block Bitcoin address on a documentation page (the checksum guard passes: it is a real address)',
};
