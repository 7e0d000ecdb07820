import { ErrorCode, SilasError } from '../../../src-shared/errors.js';

/*
 * A secret's value from standard input, for `silas secrets set` and for `silas models set` when it
 * asks for the API key again (docs/silas/models.md, "Where a key may go"). Never from arguments or
 * the environment: they show in the process list and shell history.
 */

export type Stdin = NodeJS.ReadableStream & { isTTY?: boolean };

/**
 * The whole of standard input, as strict UTF-8: a byte that is not UTF-8 would otherwise become
 * U+FFFD and the stored secret would silently differ from what was piped. Reading stops once the
 * input is past `maxBytes` (the keyring's limit, CliContext.secretRules), so a runaway pipe is not
 * buffered whole.
 */
export async function readSecretValue(stdin: Stdin, name: string, maxBytes: number): Promise<string> {
  // Room for the limit plus a trailing CRLF that is stripped before the limit is checked.
  const limit = maxBytes + 2;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Buffer);
    chunks.push(bytes);
    size += bytes.length;
    if (size > limit) throw new SilasError(ErrorCode.InvalidArgs, `the value of secret "${name}" is longer than ${maxBytes} bytes (64 KiB); nothing was stored`);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new SilasError(ErrorCode.InvalidArgs, `the value of secret "${name}" on standard input is not valid UTF-8; nothing was stored`);
  }
  // `echo value |` and typing then Enter add a newline that is not part of the secret; on
  // Windows it is CRLF. Only one is dropped, so a value that really ends in a newline survives
  // when given with two.
  return text.endsWith('\r\n') ? text.slice(0, -2) : text.endsWith('\n') ? text.slice(0, -1) : text;
}
