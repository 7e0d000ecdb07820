import { AipError } from '../evaluate/errors.js';
import type { DlpConfig } from '../policy/types.js';
import { compileGlobal, PatternView, type CompiledPattern } from './patterns.js';
import { ScanSession } from './scan.js';
import { walkAndRedact, type WalkRoot, type WalkSlot } from './walk.js';

/*
 * The AIP DLP engine (spec 001 §3.6): one per loaded policy, built from its compiled DlpConfig.
 * Construction compiles everything up front: one RE2.Set prefilter per direction (request-side
 * view = patterns scoped `request` or `all`; response-side = `response` or `all`) and one global
 * RE2 per pattern. Every method is synchronous, never mutates its input, and never throws for
 * ordinary JSON; it throws DlpInputError for a value that is not a JSON tree, and any other
 * exception is a bug the caller must treat as a failure (fail closed: block the message).
 */

export type DlpDirection = 'request' | 'response';

export interface DlpEvent {
  /** The pattern's `name`. */
  rule: string;
  /** Markers written for it. */
  count: number;
}

export interface DlpTextResult {
  output: string;
  redacted: boolean;
  /** In policy order; only rules that redacted something. */
  events: DlpEvent[];
  /** max_scan_size warnings (also sent to `onWarning`). */
  warnings: string[];
}

export interface DlpValueResult {
  /** The redacted value; the very same object when nothing changed. */
  value: unknown;
  redacted: boolean;
  events: DlpEvent[];
  warnings: string[];
}

type DlpRequestAction = 'forward' | 'block' | 'redact' | 'warn';

/** `data` of the JSON-RPC error for a blocked request; the caller adds `tool` (§7.1, §3.6.4). */
interface DlpRequestErrorData {
  reason: string;
  dlp_rule: string;
  validation_error?: string;
}

interface DlpRequestError {
  code: number;
  message: string;
  data: DlpRequestErrorData;
}

export interface DlpRequestResult {
  /**
   * forward: send `value` (nothing matched, scanning off, or allow_original after a failed redaction);
   * block: send nothing, answer with `error`; redact: send `value` (redacted); warn: send `value` (unchanged) and log.
   */
  action: DlpRequestAction;
  value: unknown;
  events: DlpEvent[];
  /** -32001 (block), -32014 (reject), or null. */
  errorCode: number | null;
  error: DlpRequestError | null;
  /** Set when on_request_match is redact and the redacted arguments failed validation, whatever on_redaction_failure did about it. */
  redactionFailure: { reason: 'argument_validation_failed'; validationError: string } | null;
  warnings: string[];
}

/** Validates redacted tool arguments: an error message, or null when they are acceptable. */
export type DlpArgumentValidator = (redactedArgs: unknown) => string | null;

export interface DlpEngineOptions {
  /** Receives each warning (max_scan_size overflow, on_request_match: warn). */
  onWarning?: (message: string) => void;
}

export interface JsonRpcErrorPayload {
  code: number;
  message: string;
  data?: unknown;
}

const DLP_FORBIDDEN = AipError.Forbidden;
const DLP_REDACTION_FAILED = AipError.DlpRedactionFailed;

interface DirectionView {
  view: PatternView;
  names: string[];
  scan: boolean;
}

export class DlpEngine {
  readonly config: DlpConfig;
  private readonly request: DirectionView;
  private readonly response: DirectionView;
  /** Every pattern, whatever its scope or the scan switches: what may be written to the audit log. */
  private readonly audit: DirectionView;
  private readonly onWarning: (message: string) => void;
  /**
   * The request view holds every pattern and scans: a request scan is then also the audit
   * redaction of the same value, and the proxy (which records the arguments it just scanned)
   * need not walk them twice. One slot, taken by the next `redactForAudit` of that very value.
   */
  private readonly requestIsAudit: boolean;
  private lastRequestScan: { input: unknown; result: DlpValueResult } | null = null;

  constructor(config: DlpConfig, options: DlpEngineOptions = {}) {
    this.config = config;
    this.onWarning = options.onWarning ?? (() => undefined);
    const compiled: CompiledPattern[] = config.patterns.map((pattern, policyIndex) => ({
      name: pattern.name,
      policyIndex,
      global: compileGlobal(pattern.regex),
    }));
    const build = (direction: DlpDirection | 'any', scan: boolean): DirectionView => {
      const inScope = config.patterns.map((p, i) => ({ p, i })).filter(({ p }) => direction === 'any' || p.scope === 'all' || p.scope === direction);
      const view = new PatternView(
        inScope.map(({ i }) => compiled[i]!),
        inScope.map(({ p }) => p),
        // A documented sample is left alone only in what comes back (verify/documented.ts).
        direction !== 'response',
      );
      return { view, names: inScope.map(({ p }) => p.name), scan: config.enabled && scan && inScope.length > 0 };
    };
    this.request = build('request', config.scanRequests);
    this.response = build('response', config.scanResponses);
    this.audit = build('any', true);
    this.requestIsAudit = this.request.scan && this.request.names.length === this.audit.names.length;
  }

  /**
   * Redacts a value with every pattern before it is written to the audit log (AIP §8: args
   * SHOULD be redacted), independent of scan_requests/scan_responses: the ledger must not
   * become the place a secret leaks to.
   */
  redactForAudit(value: unknown): DlpValueResult {
    const last = this.lastRequestScan;
    if (last !== null && last.input === value) {
      this.lastRequestScan = null;
      return last.result;
    }
    return this.runView(value, this.audit, 'request', 'generic');
  }

  /** Scans one string (vectors' `{type, content}` input). Respects enabled / scan_requests / scan_responses. */
  scanText(text: string, direction: DlpDirection): DlpTextResult {
    const result = this.run(text, direction, 'generic');
    return { output: result.value as string, redacted: result.redacted, events: result.events, warnings: result.warnings };
  }

  /** Redacts a JSON-RPC `result` (MCP-aware for tools/call and resources/read; any JSON value works). */
  redactResponse(result: unknown): DlpValueResult {
    return this.run(result, 'response', 'mcp-result');
  }

  /** Redacts a JSON-RPC error payload from the server: `message` and every string in `data`; `code` untouched. */
  redactError(error: JsonRpcErrorPayload): DlpValueResult {
    return this.run(error, 'response', 'generic');
  }

  /** Redacts an MCP server's stderr text when filter_stderr is on (response-side patterns); otherwise passes it through. */
  filterStderr(text: string): DlpTextResult {
    if (!this.config.filterStderr) return { output: text, redacted: false, events: [], warnings: [] };
    return this.scanText(text, 'response');
  }

  /**
   * scan_requests (§3.6.1) with on_request_match (§3.6.4) and on_redaction_failure, for a
   * tools/call `arguments` value. With redact, the redacted arguments are passed to `validate`
   * (a throwing validator counts as a failure with its message).
   */
  scanRequest(args: unknown, validate?: DlpArgumentValidator): DlpRequestResult {
    const scanned = this.run(args, 'request', 'generic');
    this.lastRequestScan = this.requestIsAudit ? { input: args, result: scanned } : null;
    // Results are written out in full, never spread from a shared base: a spread here was most
    // of the cost of scanning a small call's arguments, which the proxy pays on every call.
    const { events, warnings } = scanned;
    if (!scanned.redacted) return requestResult('forward', args, events, warnings);
    const rule = events[0]!.rule;
    switch (this.config.onRequestMatch) {
      case 'warn': {
        const message = `DLP: request arguments matched ${events.map((e) => e.rule).join(', ')}; forwarded unchanged (on_request_match: warn)`;
        this.onWarning(message);
        return requestResult('warn', args, events, [...warnings, message]);
      }
      case 'redact': {
        let validationError: string | null = null;
        if (validate !== undefined) {
          try {
            validationError = validate(scanned.value);
          } catch (err) {
            validationError = err instanceof Error ? err.message : String(err);
          }
        }
        if (validationError === null) return requestResult('redact', scanned.value, events, warnings);
        const redactionFailure = { reason: 'argument_validation_failed' as const, validationError };
        const data: DlpRequestErrorData = { reason: 'Redacted request failed argument validation', dlp_rule: rule, validation_error: validationError };
        switch (this.config.onRedactionFailure) {
          case 'allow_original':
            return requestResult('forward', args, events, warnings, null, redactionFailure);
          case 'reject':
            return requestResult('block', args, events, warnings, { ...DLP_REDACTION_FAILED, data }, redactionFailure);
          case 'block':
          default:
            return requestResult('block', args, events, warnings, { ...DLP_FORBIDDEN, data }, redactionFailure);
        }
      }
      case 'block':
      default:
        return requestResult('block', args, events, warnings, { ...DLP_FORBIDDEN, data: { reason: 'DLP pattern matched in request arguments', dlp_rule: rule } });
    }
  }

  private run(value: unknown, direction: DlpDirection, kind: WalkRoot): DlpValueResult {
    return this.runView(value, direction === 'request' ? this.request : this.response, direction, kind);
  }

  private runView(value: unknown, side: DirectionView, direction: DlpDirection, kind: WalkRoot): DlpValueResult {
    if (!side.scan) return { value, redacted: false, events: [], warnings: [] };
    const session = new ScanSession<WalkSlot>({
      view: side.view,
      names: side.names,
      limit: this.config.maxScanSize,
      detectEncoding: this.config.detectEncoding,
      normalize: this.config.normalize,
      direction,
      warn: this.onWarning,
    });
    const out = walkAndRedact(value, session, kind);
    const events = eventsFrom(side.names, session.counts);
    return { value: out, redacted: events.length > 0, events, warnings: session.warnings };
  }
}

function requestResult(
  action: DlpRequestAction,
  value: unknown,
  events: DlpEvent[],
  warnings: string[],
  error: DlpRequestError | null = null,
  redactionFailure: DlpRequestResult['redactionFailure'] = null,
): DlpRequestResult {
  return { action, value, events, errorCode: error === null ? null : error.code, error, redactionFailure, warnings };
}

/** Events in policy order, one per rule name (patterns sharing a name are summed), only for rules that redacted. */
function eventsFrom(names: readonly string[], counts: readonly number[]): DlpEvent[] {
  const events: DlpEvent[] = [];
  const byName = new Map<string, DlpEvent>();
  names.forEach((rule, i) => {
    const count = counts[i]!;
    if (count === 0) return;
    const existing = byName.get(rule);
    if (existing !== undefined) existing.count += count;
    else {
      const event = { rule, count };
      byName.set(rule, event);
      events.push(event);
    }
  });
  return events;
}
