import { createInterface } from 'node:readline';
import { homedir } from 'node:os';
import { createPolicyEngine } from '../../aip/engine.js';
import { errorResponse, type JsonRpcId } from '../../aip/evaluate/errors.js';
import { evaluateWithContext, type SimulatedContext } from '../../aip/evaluate/simulated-context.js';
import { parseFlags } from '../args.js';
import type { OpenForCommand } from '../../app/cli-context.js';
import { UsageError, type CliIo } from '../io.js';
import { formatPolicyError, keyFlags, loadForCli } from './policy-loading.js';

const policyEvalUsage = `Usage: silas policy eval --policy FILE [--home DIR] [--public-key HEX]...

Reads JSON lines on stdin, one request each:
  {"method","tool","args","context","request_id"}
and writes one line per input:
  {"decision","error_code","violation","reason","failed_arg","failed_rule","response"}
\`context\` may carry previous_calls (rate limits) and user_response (deny|timeout|approve).
A line that is not a JSON object is denied (JSON-RPC -32600) and evaluation goes on.
Exit 0 when every line was evaluated, 1 when the policy does not load or a line was malformed.`;

const MAX_LINE_BYTES = 4 * 1024 * 1024;

function malformed(reason: string) {
  return {
    decision: 'BLOCK',
    error_code: -32600,
    violation: true,
    reason,
    failed_arg: null,
    failed_rule: null,
    response: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request', data: { reason } } },
  };
}

export async function policyEval(argv: string[], io: CliIo, open: OpenForCommand): Promise<number> {
  const { values } = parseFlags(argv, { ...keyFlags, policy: { type: 'string' } }, policyEvalUsage);
  if (values.help) {
    io.out(policyEvalUsage);
    return 0;
  }
  if (!values.policy) throw new UsageError('--policy FILE is required', policyEvalUsage);
  const loaded = await loadForCli(policyEvalUsage, values.policy, values, io, open);
  if (!loaded.ok) {
    for (const e of loaded.errors) io.err(formatPolicyError(values.policy, e));
    return 1;
  }
  const { evaluator } = createPolicyEngine(loaded.policy, { homeDir: homedir(), cwd: process.cwd() });
  const lines = createInterface({ input: io.stdin ?? process.stdin, crlfDelay: Infinity });
  let lineNumber = 0;
  let bad = 0;
  for await (const line of lines) {
    lineNumber += 1;
    if (line.trim() === '') continue;
    if (Buffer.byteLength(line) > MAX_LINE_BYTES) {
      bad += 1;
      io.out(JSON.stringify(malformed(`input line ${lineNumber} is larger than ${MAX_LINE_BYTES} bytes`)));
      continue;
    }
    let request: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(line);
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not a JSON object');
      request = parsed as Record<string, unknown>;
      if (typeof request.method !== 'string') throw new Error('"method" must be a string');
      if (request.tool !== undefined && typeof request.tool !== 'string') throw new Error('"tool" must be a string');
    } catch (error) {
      bad += 1;
      io.out(JSON.stringify(malformed(`input line ${lineNumber}: ${(error as Error).message}`)));
      continue;
    }
    const requestId = (typeof request.request_id === 'string' || typeof request.request_id === 'number' ? request.request_id : null) as JsonRpcId;
    const decision = evaluateWithContext(
      evaluator,
      { method: request.method as string, tool: request.tool as string | undefined, args: request.args ?? {}, requestId },
      (request.context ?? {}) as SimulatedContext,
    );
    io.out(
      JSON.stringify({
        decision: decision.monitored ? 'ALLOW_MONITOR' : decision.decision,
        error_code: decision.errorCode,
        violation: decision.violation,
        reason: decision.reason,
        failed_arg: decision.failedArg,
        failed_rule: decision.failedRule,
        response: decision.error ? errorResponse(requestId, decision.error) : null,
      }),
    );
  }
  return bad > 0 ? 1 : 0;
}
