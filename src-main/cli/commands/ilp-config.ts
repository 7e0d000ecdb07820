import { resolveHome } from '../../home/paths.js';
import { MAX_ILP_CONFIG_BYTES, parseIlpConfig, type IlpConfig, type IlpConfigProblem } from '../../ilp/config/ilp-config.js';
import { parseFlags } from '../args.js';
import type { OpenForCommand } from '../../app/cli-context.js';
import { UsageError, type CliIo } from '../io.js';
import { readBoundedFile } from './ilp-file.js';
import { terminalSafe } from './plan.js';

/*
 * `silas ilp config show|check|apply` (docs/ilp.md "Configuration"): HOME/ilp.yaml is what the
 * owner adds to ILP's constitution, sealed with the owner key, so it is put in force only through
 * `apply`, which checks the file, signs it from the OS keyring and records it in the ledger. The
 * running runtime uses it from its next request.
 */

export const ilpConfigUsage = `  silas ilp config show [--home DIR] [--json]
      HOME/ilp.yaml as the runtime sees it: in force, or refused (changed outside Silas) with the
      fix; its custom principles, forbidden translations and remote specialists.
  silas ilp config check FILE [--json]
      Check a configuration without applying it: exit 0 when it is valid, 1 with each problem's
      line, column, field and fix.
  silas ilp config apply FILE [--home DIR] [--json]
      Check FILE, sign it with the owner key from the OS keyring, write it to HOME/ilp.yaml and
      record it in the ledger (ilp.config_applied). The running runtime uses it from the next
      request. To edit: copy HOME/ilp.yaml, change it, apply the copy (or edit it in place and
      apply it: a file changed outside Silas stops ILP with a 503 until it is applied).`;

type Flags = { help?: boolean; json?: boolean; home?: string };

export async function ilpConfig(argv: string[], io: CliIo, open: OpenForCommand, usage: string): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb === undefined || verb === '--help' || verb === '-h') {
    if (verb === undefined) throw new UsageError('ilp config: name show, check or apply', usage);
    io.out(usage);
    return 0;
  }
  const { values, positionals } = parseFlags(rest, { json: { type: 'boolean' }, home: { type: 'string' } }, usage, true) as { values: Flags; positionals: string[] };
  if (values.help) {
    io.out(usage);
    return 0;
  }
  if (verb === 'show') {
    if (positionals.length > 0) throw new UsageError('ilp config show: takes no arguments', usage);
    return show(io, open, values);
  }
  if (verb !== 'check' && verb !== 'apply') throw new UsageError(`ilp config: unknown verb "${terminalSafe(verb.slice(0, 40))}"; use show, check or apply`, usage);
  if (positionals.length !== 1) throw new UsageError(`ilp config ${verb}: name one file, e.g. silas ilp config ${verb} ilp.yaml`, usage);
  const file = positionals[0]!;
  const bytes = readBoundedFile(file, MAX_ILP_CONFIG_BYTES);
  if (typeof bytes === 'string') return problemsOut(io, values.json, file, [{ line: 1, column: 1, field: '(file)', message: bytes }]);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return problemsOut(io, values.json, file, [{ line: 1, column: 1, field: '(file)', message: 'the file is not UTF-8 text; save it as UTF-8' }]);
  }
  const parsed = parseIlpConfig(text);
  if (!parsed.ok) return problemsOut(io, values.json, file, parsed.problems);
  if (verb === 'check') {
    if (values.json) io.out(JSON.stringify({ ok: true, config: parsed.config }));
    else describe(io, `${file} is a valid ILP configuration`, parsed.config);
    return 0;
  }
  const cli = await open(resolveHome(values.home, io.env));
  const ledger = (await cli.database()).openIlpConfig('signer');
  try {
    const applied = ledger.apply(text);
    if (!applied.ok) return problemsOut(io, values.json, file, applied.problems);
    if (values.json) io.out(JSON.stringify({ ok: true, path: applied.path, config: parsed.config }));
    else describe(io, `applied ${file} as ${applied.path}: signed with the owner key and recorded; the runtime uses it from the next request`, parsed.config);
    return 0;
  } finally {
    ledger.close();
  }
}

async function show(io: CliIo, open: OpenForCommand, values: Flags): Promise<number> {
  const cli = await open(resolveHome(values.home, io.env));
  const ledger = (await cli.database()).openIlpConfig('verify');
  try {
    const loaded = ledger.load();
    if (values.json) {
      io.out(JSON.stringify(loaded.ok ? { in_force: true, path: loaded.path, exists: loaded.exists, config: loaded.config } : { in_force: false, path: loaded.path, exists: loaded.exists, problem: loaded.problem, problems: loaded.problems }));
    } else if (loaded.ok) {
      describe(io, loaded.exists ? `${loaded.path} is in force` : `no ${loaded.path}: the six universal principles alone (write one and apply it with \`silas ilp config apply FILE\`)`, loaded.config);
    } else {
      io.out(`NOT IN FORCE: ${terminalSafe(loaded.problem)}`);
      for (const p of loaded.problems) io.out(`  ${p.line}:${p.column} ${terminalSafe(p.field)}: ${terminalSafe(p.message)}`);
    }
    return loaded.ok ? 0 : 1;
  } finally {
    ledger.close();
  }
}

function problemsOut(io: CliIo, json: boolean | undefined, file: string, problems: IlpConfigProblem[]): number {
  if (json) io.out(JSON.stringify({ ok: false, problems }));
  else for (const p of problems) io.err(`${terminalSafe(file)}:${p.line}:${p.column}: ${terminalSafe(p.field)}: ${terminalSafe(p.message)}`);
  return 1;
}

function describe(io: CliIo, headline: string, config: IlpConfig): void {
  io.out(terminalSafe(headline));
  io.out(`principles (${config.principles.length} custom, beside the six universal):`);
  for (const p of config.principles) io.out(`  ${p.id} (${p.severity}${p.domains ? `; ${p.domains.join(', ')}` : ''}): ${terminalSafe(p.description)}`);
  io.out(`forbidden translations (${config.forbidden_translations.length}):`);
  for (const t of config.forbidden_translations) io.out(`  ${t.from} -> ${t.to}${t.reason ? `: ${terminalSafe(t.reason)}` : ''}`);
  io.out(`remote specialists (${config.specialists.length}):`);
  for (const s of config.specialists) io.out(`  ilp://${s.id}/ (${s.domain}) at ${terminalSafe(s.url)}${s.credential_secret ? `, credential in secret "${s.credential_secret}"` : ''}`);
}
