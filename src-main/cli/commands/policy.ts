import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { resolveHome } from '../../home/paths.js';
import { loadPolicyText, readPolicyText } from '../../aip/policy/load.js';
import { findTool, listTools, SCHEMA_HASH_ALGORITHMS, toolSchemaHash, type SchemaHashAlgorithm } from '../../aip/policy/schema-hash.js';
import { PolicySignError, signPolicyText } from '../../aip/policy/sign.js';
import type { OpenForCommand } from '../../app/cli-context.js';
import { anchorPolicyInForce } from '../../aip/policy/in-force.js';
import { parseFlags } from '../args.js';
import { policyEval } from './policy-eval.js';
import { formatPolicyError, formatWarningLine, keyFlags, loadForCli } from './policy-loading.js';
import { writeFileAtomic } from '../../home/atomic-file.js';
import { UsageError, type CliIo, type Command, runSubcommand, type Subcommand } from '../io.js';

const usage = `Usage: silas policy <validate|hash|schema-hash|sign|eval|test|replay> [options]

  silas policy validate FILE [--json] [--home DIR] [--public-key HEX]... [--require-signature]
      Load an AIP AgentPolicy (spec 001) and report every problem as FILE:LINE:COL path: message.
      Exit 0 when valid, 1 when not. A signed policy is verified against the owner key of the
      data home (when the OS keyring is reachable) and any --public-key given.
  silas policy hash FILE [--home DIR] [--public-key HEX]...
      Print the §5.2 policy hash (64 hex characters) of a valid policy.
  silas policy schema-hash --tools-file FILE --tool NAME [--algorithm sha256|sha384|sha512]
      Print the §3.5.4 schema hash of one tool from a tools/list result, a JSON-RPC response
      carrying one, or a JSON array of tools, for pinning with schema_hash.
  silas policy eval --policy FILE [--home DIR] [--public-key HEX]...
      Evaluate JSON-line requests from stdin against the policy; one JSON decision per line.
  silas policy sign FILE [--home DIR] [--output FILE]
      Sign the policy with the owner key from the OS keyring (metadata.signature, §3.3.1) and put
      it in force: proxies of the home enforce only the policy last signed here or saved in the
      cockpit (docs/mcp-proxy.md "Signed policies"). Rewrites FILE atomically (or writes --output)
      and prints the key fingerprint.
  silas policy test --policy DRAFT --suite FILE [--current POLICY] [--json]
      Run a test suite of calls with expected decisions against a draft; exit 1 when one fails.
  silas policy replay --policy DRAFT --server NAME [--last N] [--current POLICY] [--home DIR] [--json]
      Replay the server's last N recorded tool calls under the draft; exit 1 when one would change.

Options:
  --home DIR         data home whose owner key signs or verifies (default: $SILAS_HOME, else the platform's app-data directory)
  --public-key HEX   also trust this raw Ed25519 public key (64 hex characters); repeatable
  --json             machine-readable output
  -h, --help         show this help`;

const MAX_TOOLS_FILE_BYTES = 16 * 1024 * 1024;

function help(io: CliIo): number {
  io.out(usage);
  return 0;
}

function oneFile(positionals: string[], sub: string): string {
  if (positionals.length === 0) throw new UsageError(`policy ${sub}: name the policy file`, usage);
  if (positionals.length > 1) throw new UsageError(`policy ${sub}: expected one policy file, got ${positionals.length}`, usage);
  return positionals[0]!;
}

async function validate(argv: string[], io: CliIo, open: OpenForCommand): Promise<number> {
  const { values, positionals } = parseFlags(argv, { ...keyFlags, json: { type: 'boolean' }, 'require-signature': { type: 'boolean' } }, usage, true);
  if (values.help) return help(io);
  const file = oneFile(positionals, 'validate');
  const result = await loadForCli(usage, file, values, io, open);
  if (values.json) {
    io.out(
      JSON.stringify(
        result.ok
          ? {
              file,
              valid: true,
              apiVersion: result.policy.apiVersion,
              name: result.policy.name,
              version: result.policy.version,
              toolRules: result.policy.toolRules.size,
              hash: result.policy.hash,
              signedBy: result.signedBy,
              warnings: result.warnings,
            }
          : { file, valid: false, errors: result.errors },
      ),
    );
    return result.ok ? 0 : 1;
  }
  if (!result.ok) {
    for (const error of result.errors) io.out(formatPolicyError(file, error));
    io.out(`${file}: invalid, ${result.errors.length} error${result.errors.length === 1 ? '' : 's'}`);
    return 1;
  }
  for (const warning of result.warnings) io.err(formatWarningLine(file, warning));
  const { policy } = result;
  const rules = policy.toolRules.size;
  io.out(
    `${file}: valid ${policy.apiVersion} AgentPolicy "${policy.name}"${policy.version ? ` version ${policy.version}` : ''}, ${rules} tool rule${rules === 1 ? '' : 's'}, hash ${policy.hash}, ${result.signedBy ? `signature verified (${result.signedBy})` : 'unsigned'}`,
  );
  return 0;
}

async function hash(argv: string[], io: CliIo, open: OpenForCommand): Promise<number> {
  const { values, positionals } = parseFlags(argv, keyFlags, usage, true);
  if (values.help) return help(io);
  const file = oneFile(positionals, 'hash');
  const result = await loadForCli(usage, file, values, io, open);
  if (!result.ok) {
    for (const error of result.errors) io.err(formatPolicyError(file, error));
    return 1;
  }
  io.out(result.policy.hash);
  return 0;
}

async function schemaHash(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, { 'tools-file': { type: 'string' }, tool: { type: 'string' }, algorithm: { type: 'string' } }, usage, true);
  if (values.help) return help(io);
  if (positionals.length > 0) throw new UsageError(`policy schema-hash: unexpected argument "${positionals[0]}"; use --tools-file FILE --tool NAME`, usage);
  const file = values['tools-file'];
  const name = values.tool;
  if (!file) throw new UsageError('policy schema-hash: --tools-file FILE is required', usage);
  if (!name) throw new UsageError('policy schema-hash: --tool NAME is required', usage);
  const algorithm = (values.algorithm ?? 'sha256') as SchemaHashAlgorithm;
  if (!SCHEMA_HASH_ALGORITHMS.includes(algorithm)) throw new UsageError(`--algorithm: expected sha256, sha384 or sha512, got "${values.algorithm}"`, usage);

  let json: unknown;
  try {
    const size = statSync(file).size;
    if (size > MAX_TOOLS_FILE_BYTES) {
      io.err(`silas policy schema-hash: ${file} is ${size} bytes; the maximum is ${MAX_TOOLS_FILE_BYTES}`);
      return 1;
    }
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    io.err(`silas policy schema-hash: cannot read ${file} as JSON: ${(error as Error).message}`);
    return 1;
  }
  try {
    const tool = findTool(json, name);
    if (!tool) {
      const available = listTools(json).map((t) => t.name);
      io.err(`silas policy schema-hash: no tool "${name}" in ${file}; available tools: ${available.length > 0 ? available.join(', ') : '(none)'}`);
      return 1;
    }
    io.out(toolSchemaHash(tool, algorithm));
    return 0;
  } catch (error) {
    io.err(`silas policy schema-hash: ${file}: ${(error as Error).message}`);
    return 1;
  }
}

/** Keeps the policy file's mode (0644 for a new one). */
function writeAtomically(target: string, data: string): void {
  let mode = 0o644;
  try {
    mode = statSync(target).mode & 0o777;
  } catch {
    // a new file
  }
  writeFileAtomic(target, data, mode);
}

async function sign(argv: string[], io: CliIo, open: OpenForCommand): Promise<number> {
  const { values, positionals } = parseFlags(argv, { home: { type: 'string' }, output: { type: 'string', short: 'o' } }, usage, true);
  if (values.help) return help(io);
  const file = oneFile(positionals, 'sign');
  const text = readPolicyText(resolve(file));
  if (!text.ok) {
    for (const error of text.errors) io.err(formatPolicyError(file, error));
    return 1;
  }
  const cli = await open(resolveHome(values.home, io.env));
  const { signer, trusted } = cli.ownerSigner();
  let signed: string;
  try {
    signed = signPolicyText(text.text, signer);
  } catch (error) {
    if (!(error instanceof PolicySignError)) throw error;
    for (const problem of error.errors) io.err(formatPolicyError(file, problem));
    io.err(`${file}: not signed; fix the errors above first`);
    return 1;
  }
  const target = resolve(values.output ?? file);
  // Anchored before it is written: a running proxy that sees the new file finds it in force at once.
  anchorPolicyInForce(cli.policyAnchors(signer), target, signed);
  writeAtomically(target, signed);
  const loaded = loadPolicyText(signed, { trustedKeys: trusted });
  io.out(`Signed ${values.output ?? file} with owner key ${signer.fingerprint}${loaded.ok ? ` (policy hash ${loaded.policy.hash})` : ''}`);
  return 0;
}

// The test bench loads the ledger and the trial engine only when asked (start-up stays light).
const policyTest: Subcommand = async (argv, io, open) => (await import('./policy-trial.js')).policyTest(argv, io, open);
const policyReplay: Subcommand = async (argv, io, open) => (await import('./policy-trial.js')).policyReplay(argv, io, open);

const subcommands: Record<string, Subcommand> = { validate, hash, 'schema-hash': schemaHash, sign, eval: policyEval, test: policyTest, replay: policyReplay };

export const policyCommand: Command = {
  name: 'policy',
  usage,
  run: (argv, io, open) => runSubcommand('policy', usage, subcommands, argv, io, open),
};
