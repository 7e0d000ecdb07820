import { z } from 'zod';
import type { JsonObject, JsonValue } from '../../../src-shared/schemas/json.js';
import type { Gate, GateContext } from '../../../src-shared/silas/gates.js';
import { findPii, findSecrets, PII_ALIASES, PII_ENTITIES, redact, SECRET_KINDS, summarise, type Finding, type PiiEntity, type SecretKind } from './content/detectors.js';
import { JailbreakDetector } from './content/jailbreak.js';
import { GateConfigError, lookupPath, parseProviderConfig, subjectPath, type GateCheckProvider, type GateVerdict, type PreparedGateCheck } from './provider.js';

/**
 * The `guardrails_ai` provider (spec 002 §5.5.1), implemented with built-in deterministic
 * validators instead of the Python library (DESIGN §4). `check` names the validator:
 * `pii`, `secrets` or `jailbreak` (guardrails hub names `detect_pii`, `secrets_present`,
 * `detect_jailbreak` are accepted too). `config.on_fail` follows the validator modes:
 * `exception` → block, `fix` → continue with the redacted text in `modified_context`,
 * `noop` → continue, reported only.
 */

const MAX_TEXT = 1_000_000;
const MAX_DEPTH = 32;

const CHECK_ALIASES: Record<string, 'pii' | 'secrets' | 'jailbreak'> = {
  pii: 'pii',
  detect_pii: 'pii',
  secrets: 'secrets',
  secrets_present: 'secrets',
  jailbreak: 'jailbreak',
  detect_jailbreak: 'jailbreak',
};

const OnFail = z.enum(['exception', 'fix', 'noop']);
const PiiConfig = z.object({ entities: z.array(z.string()).min(1).max(20).optional(), on_fail: OnFail.default('exception') }).strict();
const SecretsConfig = z
  .object({ kinds: z.array(z.enum(SECRET_KINDS)).min(1).max(20).optional(), min_entropy: z.number().min(0).max(8).optional(), on_fail: OnFail.default('exception') })
  .strict();
const JailbreakConfig = z
  .object({ phrases: z.array(z.string().min(1).max(500)).max(500).optional(), on_fail: z.enum(['exception', 'noop'], { message: 'a jailbreak cannot be redacted; use exception or noop' }).default('exception') })
  .strict();

class TooLarge extends Error {}

/** Applies `fn` to every string leaf of a JSON value, keeping its shape. */
function mapStrings(value: JsonValue, fn: (text: string) => string, depth = 0): JsonValue {
  if (depth > MAX_DEPTH) throw new TooLarge('nested deeper than 32 levels');
  if (typeof value === 'string') return fn(value);
  if (typeof value === 'number' || typeof value === 'boolean') {
    const text = String(value);
    const mapped = fn(text);
    return mapped === text ? value : mapped;
  }
  if (value === null) return null;
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, fn, depth + 1));
  const out: JsonObject = {};
  for (const key of Object.keys(value)) out[key] = mapStrings(value[key]!, fn, depth + 1);
  return out;
}

function mutationFor(path: string, redacted: JsonValue): JsonObject | null {
  if (path === 'message' || path === 'response') return { [path]: typeof redacted === 'string' ? redacted : JSON.stringify(redacted) };
  if (path === 'tool_args') return { tool_args: redacted };
  const [head, arg, ...rest] = path.split('.');
  if (head === 'tool_args' && arg !== undefined && rest.length === 0) return { tool_args: { [arg]: redacted } };
  return null;
}

function targetPath(gate: Gate): string {
  const path = subjectPath(gate);
  if (path !== null) return path;
  if (gate.on === 'on_tool_call') return 'tool_args';
  throw new GateConfigError(gate.name, 'extract', 'an after_step content gate must name the context value to check in extract');
}

export class ContentGateProvider implements GateCheckProvider {
  readonly name = 'guardrails_ai' as const;

  prepare(gate: Gate): PreparedGateCheck {
    const check = gate.check === null ? undefined : CHECK_ALIASES[gate.check];
    if (check === undefined) {
      throw new GateConfigError(gate.name, 'check', `unknown guardrails check "${gate.check ?? ''}"; available: pii, secrets, jailbreak`);
    }
    const path = targetPath(gate);
    if (check === 'jailbreak') return this.prepareJailbreak(gate, path);

    let detect: (text: string) => Finding[];
    let onFail: z.infer<typeof OnFail>;
    let label: string;
    if (check === 'pii') {
      const config = parseProviderConfig(gate, PiiConfig);
      const entities = (config.entities ?? [...PII_ENTITIES]).map((raw, i) => {
        const name = raw.toUpperCase();
        const entity = PII_ALIASES[name] ?? (PII_ENTITIES as readonly string[]).find((e) => e === name);
        if (entity === undefined) throw new GateConfigError(gate.name, `config.entities.${i}`, `unknown entity "${raw}"; available: ${PII_ENTITIES.join(', ')}`);
        return entity as PiiEntity;
      });
      detect = (text) => findPii(text, entities);
      onFail = config.on_fail;
      label = 'PII';
    } else {
      const config = parseProviderConfig(gate, SecretsConfig);
      const kinds: readonly SecretKind[] = config.kinds ?? SECRET_KINDS;
      detect = (text) => findSecrets(text, kinds, config.min_entropy);
      onFail = config.on_fail;
      label = 'Secret';
    }
    if (onFail === 'fix' && mutationFor(path, '') === null) {
      throw new GateConfigError(gate.name, 'config.on_fail', `fix mode can only rewrite message, response, tool_args or one tool argument; "${path}" is none of these`);
    }

    return (context: GateContext): GateVerdict => {
      const value = lookupPath(context, path);
      if (value === undefined || value === null) return { action: 'continue', reason: `Nothing to check at ${path}` };
      const findings: Finding[] = [];
      let size = 0;
      let redacted: JsonValue;
      try {
        redacted = mapStrings(value, (text) => {
          size += text.length;
          if (size > MAX_TEXT) throw new TooLarge(`more than ${MAX_TEXT} characters`);
          const found = detect(text);
          findings.push(...found);
          return found.length > 0 ? redact(text, found) : text;
        });
      } catch (error) {
        if (error instanceof TooLarge) return { action: 'block', reason: `${label} check refused the input: ${error.message}` };
        throw error;
      }
      if (findings.length === 0) return { action: 'continue', reason: `No ${label} found` };
      const what = `${label} detected: ${summarise(findings)}`;
      if (onFail === 'exception') return { action: 'block', reason: what };
      if (onFail === 'noop') return { action: 'continue', reason: `${what} (reported only)` };
      return { action: 'continue', reason: `${what}; redacted`, modified_context: mutationFor(path, redacted) };
    };
  }

  private prepareJailbreak(gate: Gate, path: string): PreparedGateCheck {
    const config = parseProviderConfig(gate, JailbreakConfig);
    let detector: JailbreakDetector;
    try {
      detector = new JailbreakDetector(config.phrases ?? []);
    } catch (error) {
      throw new GateConfigError(gate.name, 'config.phrases', (error as Error).message);
    }
    return (context: GateContext): GateVerdict => {
      const value = lookupPath(context, path);
      if (value === undefined || value === null) return { action: 'continue', reason: `Nothing to check at ${path}` };
      const texts: string[] = [];
      let size = 0;
      try {
        mapStrings(value, (text) => {
          size += text.length;
          if (size > MAX_TEXT) throw new TooLarge(`more than ${MAX_TEXT} characters`);
          texts.push(text);
          return text;
        });
      } catch (error) {
        if (error instanceof TooLarge) return { action: 'block', reason: `Jailbreak check refused the input: ${error.message}` };
        throw error;
      }
      const found = detector.detect(texts.join('\n'));
      if (found.length === 0) return { action: 'continue', reason: 'No jailbreak phrase found' };
      const what = `Jailbreak phrase detected: ${found.map((f) => f.rule).join(', ')}`;
      return config.on_fail === 'noop' ? { action: 'continue', reason: `${what} (reported only)` } : { action: 'block', reason: what };
    };
  }
}
