import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readHeaders } from './headers.js';
import { headerOf, type IlpMessage } from './message.js';
import { parseIlpMessage } from './parse.js';
import { serializeIlpMessage } from './serialize.js';

/*
 * Every wire message of the RFC's examples (../shared/conformance/ilp/rfc-examples/messages),
 * parsed and written again. Two examples declare a Content-Length their body does not have (§5.3,
 * §5.4): the normative text wins, so they are refused naming the field, and parse once the length
 * is the body's (docs/conformance.md "ILP wire format"). §6.1's file is one header field alone.
 */

const MESSAGES = fileURLToPath(new URL('../../../../shared/conformance/ilp/rfc-examples/messages/', import.meta.url));
const files = readdirSync(MESSAGES).filter((f) => f.endsWith('.ilp')).sort();
const WRONG_LENGTH = new Set(['5.3-think-request.ilp', '5.4-think-response-200.ilp']);
const HEADER_ONLY = '6.1-constitutional-header-example.ilp';

/** What a message says, without the Content-Length the writer computes. */
function meaning(message: IlpMessage) {
  return { ...message, headers: message.headers.filter((h) => h.name.toLowerCase() !== 'content-length') };
}

function withRightLength(text: string): string {
  const body = text.slice(text.indexOf('\n\n') + 2).replace(/\n$/, '');
  return text.replace(/Content-Length: \d+/, `Content-Length: ${Buffer.byteLength(body, 'utf8')}`);
}

describe('the RFC example messages', () => {
  it('are all here', () => {
    expect(files).toHaveLength(15);
  });

  for (const file of files.filter((f) => f !== HEADER_ONLY)) {
    it(`${file} parses, and is written again to an equivalent message`, () => {
      let text = readFileSync(join(MESSAGES, file), 'utf8');
      if (WRONG_LENGTH.has(file)) {
        const refused = parseIlpMessage(text);
        expect(refused).toMatchObject({ ok: false, error: { status: 400, field: 'Content-Length', message: expect.stringMatching(/^Content-Length declares \d+ bytes but the body has \d+/) } });
        text = withRightLength(text);
      }
      const parsed = parseIlpMessage(text);
      if (!parsed.ok) throw new Error(`${file}: ${parsed.error.field}: ${parsed.error.message}`);
      const again = parseIlpMessage(serializeIlpMessage(parsed.message));
      if (!again.ok) throw new Error(`${file} written again: ${again.error.field}: ${again.error.message}`);
      expect(meaning(again.message)).toEqual(meaning(parsed.message));
    });
  }

  it('§6.1 is one Constitutional-Header over several lines, with its ten fields', () => {
    const lines = readFileSync(join(MESSAGES, HEADER_ONLY), 'utf8').replace(/\n$/, '').split('\n');
    const read = readHeaders(lines);
    if (!read.ok) throw new Error(read.error.message);
    expect(read.headers).toHaveLength(1);
    expect(Object.keys(read.headers[0]!.value as object)).toHaveLength(10);
  });

  it('§13.2 reads the way the RFC means it', () => {
    const parsed = parseIlpMessage(readFileSync(join(MESSAGES, '13.2-cross-domain.request.ilp'), 'utf8'));
    if (!parsed.ok) throw new Error(parsed.error.message);
    expect(parsed.message).toMatchObject({ kind: 'request', method: 'THINK', path: '/insight', version: '1.0', body: { query: 'How can I stabilize my spending habits?' } });
    expect(headerOf(parsed.message, 'constitutional-header')?.value).toEqual({ domain: 'meta', depth: 0, max_depth: 5, budget_usd: 0, max_budget_usd: 0.1 });
    expect(headerOf(parsed.message, 'Attention-Enabled')?.value).toBe(true);
  });
});
