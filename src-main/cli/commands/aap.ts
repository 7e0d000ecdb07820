import { existsSync } from 'node:fs';
import { printConformanceReport } from './conformance-report.js';
import { formatIssue, type ValidationIssue } from '../../../src-shared/aap/issues.js';
import { validateApTrace } from '../../../src-shared/aap/validate-trace.js';
import { checkCoherence } from '../../aap/coherence.js';
import { runAapConformance } from '../../aap/conformance/runner.js';
import { detectDrift } from '../../aap/drift.js';
import { InputError, readJsonFile, readTraceDocuments } from '../../aap/files.js';
import { locateTraces, reroot } from '../../aap/inputs.js';
import { loadCard, loadTraces, validateCardDocument, type Loaded } from '../../aap/load.js';
import { verifyTrace } from '../../aap/verify.js';
import { parseFlags, parsePositiveInt } from '../args.js';
import { UsageError, type CliIo, type Command, runSubcommand } from '../io.js';
import { formatCoherence, formatDrift, formatVerification } from './aap-format.js';

const usage = `Usage: silas aap <validate|verify|coherence|drift|conformance> [options]

  silas aap validate card|trace FILE [--json] [--now TIME]
      Check an Alignment Card (spec 003 §4) or the AP-Traces in FILE (§5) and report every
      problem as FILE: path: message. Exit 0 when valid, 1 when not.
  silas aap verify --card CARD --trace TRACE [--json] [--now TIME]
      Verify one AP-Trace against a card (§7): violations, warnings, similarity_score and the
      recommended action (proceed, review or deny). Exit 0 when verified, 1 when not.
  silas aap coherence CARD_A CARD_B [--task-values V1,V2] [--json]
      Value coherence of two cards (§6.4), A as initiator. Exit 0 when compatible, 1 when not.
  silas aap drift --card CARD TRACES... [--threshold X] [--sustained N] [--json]
      Drift of the traces from their own baseline (§8); TRACES are files or folders, a file
      holding one trace, a JSON array or JSON lines. Exit 0 without alert, 1 with one.
  silas aap conformance DIR [--json] [--verbose]
      Check the AAP conformance data in DIR (e.g. ../shared/conformance/aap) against the
      expected outputs. Exit 0 when no case failed, 1 otherwise.

A card file holds a card, an A2A Agent Card with an "alignment" block, or a vector with "card";
a trace file a trace, or a vector with "trace" or "traces". A file that cannot be read, or a
card or trace that does not validate where one is needed, is reported as FILE: path: message
and exits 2, as does bad usage.

Options:
  --json             machine-readable output (the result objects of spec 003 §7.4, §6.4, §8.4)
  --now TIME         judge expiry and stamp results at this RFC 3339 time (default: now)
  --task-values L    comma-separated values the task requires (default: all declared values)
  --threshold X      drift similarity threshold, 0 to 1 (default 0.30)
  --sustained N      consecutive low-similarity traces that raise an alert (default 3)
  --verbose          conformance: list passed cases too
  -h, --help         show this help`;

const INPUT_ERROR = 2;

function nowFrom(value: string | undefined): Date {
  if (value === undefined) return new Date();
  const time = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(time)) throw new UsageError(`--now: expected an RFC 3339 time such as 2026-01-31T12:00:00Z, got "${value}"`, usage);
  return new Date(time);
}

/** Prints input problems and returns exit code 2, or the value. */
function need<T>(loaded: Loaded<T>, io: CliIo): T | null {
  if (loaded.ok) return loaded.value;
  for (const line of loaded.errors) io.err(line);
  return null;
}

/** Runs a subcommand body; a file that cannot be read or parsed exits 2 with its reason. */
async function guarded(io: CliIo, run: () => number): Promise<number> {
  try {
    return run();
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    io.err(`silas aap: ${error.message}`);
    return INPUT_ERROR;
  }
}

function help(io: CliIo): number {
  io.out(usage);
  return 0;
}

const issueJson = (source: string, issue: ValidationIssue) => ({ source, ...issue });

async function validate(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, { json: { type: 'boolean' }, now: { type: 'string' } }, usage, true);
  if (values.help) return help(io);
  const [what, file, ...extra] = positionals;
  if (what !== 'card' && what !== 'trace') throw new UsageError(`aap validate: say what FILE holds: "card" or "trace", got ${what === undefined ? 'nothing' : `"${what}"`}`, usage);
  if (file === undefined || extra.length > 0) throw new UsageError(`aap validate ${what}: expected one FILE`, usage);
  const now = nowFrom(values.now);
  return guarded(io, () => {
    const found: { errors: ReturnType<typeof issueJson>[]; warnings: ReturnType<typeof issueJson>[] } = { errors: [], warnings: [] };
    let summary: string;
    if (what === 'card') {
      const validation = validateCardDocument(readJsonFile(file), now);
      found.errors = validation.errors.map((i) => issueJson(file, i));
      found.warnings = validation.warnings.map((i) => issueJson(file, i));
      summary = validation.ok ? `valid Alignment Card ${validation.card!.card_id} of agent ${validation.card!.agent_id}` : '';
    } else {
      let count = 0;
      for (const { source, document } of readTraceDocuments(file)) {
        for (const located of locateTraces(document)) {
          count += 1;
          const validation = validateApTrace(located.value);
          found.errors.push(...reroot(validation.errors, located.at).map((i) => issueJson(source, i)));
          found.warnings.push(...reroot(validation.warnings, located.at).map((i) => issueJson(source, i)));
        }
      }
      summary = `${count} valid AP-Trace${count === 1 ? '' : 's'}`;
    }
    const valid = found.errors.length === 0;
    if (values.json) {
      io.out(JSON.stringify({ file, kind: what, valid, ...found }));
    } else {
      for (const e of found.errors) io.out(`${e.source}: ${formatIssue(e)}`);
      for (const w of found.warnings) io.err(`${w.source}: warning: ${formatIssue(w)}`);
      io.out(valid ? `${file}: ${summary}` : `${file}: invalid, ${found.errors.length} error${found.errors.length === 1 ? '' : 's'}`);
    }
    return valid ? 0 : 1;
  });
}

async function verify(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, { card: { type: 'string' }, trace: { type: 'string' }, json: { type: 'boolean' }, now: { type: 'string' } }, usage, true);
  if (values.help) return help(io);
  if (positionals.length > 0) throw new UsageError(`aap verify: unexpected argument "${positionals[0]}"; use --card CARD --trace TRACE`, usage);
  if (!values.card || !values.trace) throw new UsageError('aap verify: --card CARD and --trace TRACE are both required', usage);
  const now = nowFrom(values.now);
  const { card: cardFile, trace: traceFile } = values;
  return guarded(io, () => {
    const card = need(loadCard(cardFile, now), io);
    const traces = need(loadTraces([traceFile]), io);
    if (!card || !traces) return INPUT_ERROR;
    if (traces.length !== 1) {
      io.err(`${traceFile}: holds ${traces.length} traces; verify takes one (use drift for a sequence)`);
      return INPUT_ERROR;
    }
    for (const e of card.validation.errors) io.err(`note: ${cardFile}: ${formatIssue(e)} (the card would not be activated)`);
    const result = verifyTrace(traces[0]!, card.compiled, { now });
    if (values.json) io.out(JSON.stringify(result));
    else for (const line of formatVerification(result)) io.out(line);
    return result.verified ? 0 : 1;
  });
}

async function coherence(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, { 'task-values': { type: 'string' }, json: { type: 'boolean' } }, usage, true);
  if (values.help) return help(io);
  if (positionals.length !== 2) throw new UsageError(`aap coherence: expected two card files, got ${positionals.length}`, usage);
  const [fileA, fileB] = positionals as [string, string];
  const taskValues = (values['task-values'] ?? '').split(',').map((v) => v.trim()).filter((v) => v !== '');
  return guarded(io, () => {
    const now = new Date();
    const a = need(loadCard(fileA, now), io);
    const b = need(loadCard(fileB, now), io);
    if (!a || !b) return INPUT_ERROR;
    const result = checkCoherence(a.compiled.card, b.compiled.card, { taskValues });
    if (values.json) io.out(JSON.stringify({ initiator: a.compiled.card.card_id, responder: b.compiled.card.card_id, task_values: taskValues, ...result }));
    else for (const line of formatCoherence(a.compiled.card.card_id, b.compiled.card.card_id, result)) io.out(line);
    return result.compatible ? 0 : 1;
  });
}

function threshold(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const x = Number(value);
  if (!/^\d*\.?\d+$/.test(value) || x > 1) throw new UsageError(`--threshold: expected a number from 0 to 1, got "${value}"`, usage);
  return x;
}

async function drift(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, { card: { type: 'string' }, json: { type: 'boolean' }, threshold: { type: 'string' }, sustained: { type: 'string' } }, usage, true);
  if (values.help) return help(io);
  if (!values.card) throw new UsageError('aap drift: --card CARD is required', usage);
  if (positionals.length === 0) throw new UsageError('aap drift: name at least one trace file or folder', usage);
  const options = { similarityThreshold: threshold(values.threshold), sustainedThreshold: parsePositiveInt('--sustained', values.sustained, 3, 1000, usage) };
  const cardFile = values.card;
  return guarded(io, () => {
    const card = need(loadCard(cardFile, new Date()), io);
    const traces = need(loadTraces(positionals), io);
    if (!card || !traces) return INPUT_ERROR;
    const report = detectDrift(card.compiled.card, traces, options);
    if (values.json) io.out(JSON.stringify({ card_id: card.compiled.card.card_id, traces: traces.length, ...report }));
    else for (const line of formatDrift(report, traces.length)) io.out(line);
    return report.alerts.length > 0 ? 1 : 0;
  });
}

async function conformance(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, { json: { type: 'boolean' }, verbose: { type: 'boolean' } }, usage, true);
  if (values.help) return help(io);
  if (positionals.length !== 1) throw new UsageError('aap conformance: give the data folder, e.g. ../shared/conformance/aap', usage);
  const dir = positionals[0]!;
  if (!existsSync(dir)) throw new UsageError(`aap conformance: no such folder: ${dir}`, usage);
  return printConformanceReport(io, 'AAP', runAapConformance(dir), values);
}

export const aapCommand: Command = {
  name: 'aap',
  usage,
  run: (argv, io, open) => runSubcommand('aap', usage, { validate, verify, coherence, drift, conformance }, argv, io, open),
};
