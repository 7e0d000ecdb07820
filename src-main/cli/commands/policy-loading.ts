import { resolve } from 'node:path';
import { isSilasError } from '../../../src-shared/errors.js';
import { resolveHome } from '../../home/paths.js';
import { loadPolicyText, readPolicySignature, readPolicyText, type PolicyError, type PolicyLoadResult } from '../../aip/policy/load.js';
import type { OpenForCommand } from '../../app/cli-context.js';
import { UsageError, type CliIo } from '../io.js';

/* Loading a policy file from the command line, shared by every \`silas policy\` subcommand. */

/** `FILE:LINE:COL path: message [code]`, or `FILE: message` for a problem outside the text. */
export function formatPolicyError(file: string, error: PolicyError): string {
  const what = `${error.path ? `${error.path}: ` : ''}${error.message}${error.code !== undefined ? ` [${error.code}]` : ''}`;
  return error.line > 0 ? `${file}:${error.line}:${error.column} ${what}` : `${file}: ${what}`;
}

export function formatWarningLine(file: string, warning: string): string {
  const match = /^(\d+):(\d+) (.*)$/s.exec(warning);
  return match ? `${file}:${match[1]}:${match[2]} warning: ${match[3]}` : `${file}: warning: ${warning}`;
}

/** Trusted keys: every --public-key, plus the home's owner key when the policy is signed. */
async function policyKeys(usage: string, values: { home?: string; 'public-key'?: string[] }, text: string, io: CliIo, open: OpenForCommand): Promise<Map<string, Uint8Array>> {
  const named = (values['public-key'] ?? []).map((hex) => {
    if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new UsageError(`--public-key: expected 64 hex characters (a raw Ed25519 public key), got "${hex}"`, usage);
    return Buffer.from(hex, 'hex');
  });
  const home = resolveHome(values.home, io.env);
  const { keys, ownerKeyError: error } = (await open(home)).policyVerificationKeys(named, readPolicySignature(text) !== null);
  if (error !== null) {
    io.err(`note: the owner key of ${home} could not be read (${isSilasError(error) ? error.message : (error as Error).message}); ${keys.size > 0 ? 'only the --public-key keys are trusted' : 'pass --public-key to verify the signature'}.`);
  }
  return keys;
}

export async function loadForCli(usage: string, file: string, values: { home?: string; 'public-key'?: string[]; 'require-signature'?: boolean }, io: CliIo, open: OpenForCommand): Promise<PolicyLoadResult> {
  const path = resolve(file);
  const text = readPolicyText(path);
  if (!text.ok) return text;
  return loadPolicyText(text.text, { sourcePath: path, trustedKeys: await policyKeys(usage, values, text.text, io, open), requireSignature: values['require-signature'] === true });
}

export const keyFlags = { home: { type: 'string' }, 'public-key': { type: 'string', multiple: true } } as const;

