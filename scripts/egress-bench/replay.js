// Replays one case through `silas proxy` with the MCP SDK's own client, and reads the verdict the
// way RUNNER.md's MCP table says: a definition left out of tools/list, a call answered with a
// JSON-RPC error, or a result that is an error or differs from what the server sent is a block.
// Without a control center an `ask` fails closed (-32005): it counts as a block on an attack and
// as a false positive on a benign case, and is flagged either way.
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export const SILAS_BIN = fileURLToPath(new URL('../../bin/silas.js', import.meta.url));
const REPLAY_SERVER = fileURLToPath(new URL('./replay-server.mjs', import.meta.url));

/** The JSON-RPC codes a failed-closed ask answers with (user denied, user approval timeout). */
const ASK_CODES = new Set([-32004, -32005]);
const CAP = 300;
const cap = (text) => (typeof text === 'string' && text.length > CAP ? `${text.slice(0, CAP)}…` : text);

function errorEvidence(error) {
  const data = error?.data && typeof error.data === 'object' ? error.data : undefined;
  return {
    code: typeof error?.code === 'number' ? error.code : null,
    message: cap(String(error?.message ?? error)),
    ...(data?.reason !== undefined ? { reason: cap(String(data.reason)) } : {}),
    ...(data ? { data: JSON.stringify(data).length <= 4 * CAP ? data : cap(JSON.stringify(data)) } : {}),
    ask: ASK_CODES.has(error?.code),
  };
}

/** Opens one client session through the proxy; `close()` also returns the proxy's stderr. */
async function connect(options, serverArgs) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [options.silasBin ?? SILAS_BIN, 'proxy', '--policy', options.policy, '--home', options.home, '--name', options.server, '--client', 'egress-bench', '--allow-unsigned', ...(options.sandbox === false ? ['--no-sandbox'] : []), '--', process.execPath, REPLAY_SERVER, ...serverArgs],
    // The proxy needs the session bus of the keyring the runner was started under.
    env: Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined)),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'egress-bench', version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (error) {
    await client.close().catch(() => {});
    throw Object.assign(new Error(`could not connect through the proxy: ${error?.message ?? error}`), { stderr });
  }
  return { client, stderr: () => stderr, close: () => client.close().catch(() => {}) };
}

/** Which of `names` the client was offered, or the error tools/list was answered with. */
async function listed(client, names) {
  try {
    const { tools } = await client.listTools();
    const offered = new Map(tools.map((t) => [t.name, t]));
    return { missing: names.filter((n) => !offered.has(n)), offered: [...offered.keys()] };
  } catch (error) {
    return { missing: names, offered: [], error: errorEvidence(error) };
  }
}

const texts = (content) => (Array.isArray(content) ? content.map((item) => (item?.type === 'text' ? String(item.text) : JSON.stringify(item))) : []);

/** How a result the client received differs from what the server sent (null: it does not). */
function resultChange(sent, received) {
  if (JSON.stringify(sent?.content ?? []) === JSON.stringify(received?.content ?? []) && Boolean(sent?.isError) === Boolean(received?.isError)) return null;
  const got = texts(received?.content).join('\n');
  if (got.includes('[REDACTED')) return 'redacted';
  if (received?.isError) return 'withheld';
  if (texts(sent?.content).every((t) => got.includes(t))) return 'annotated';
  return 'replaced';
}

async function call(client, step) {
  try {
    const result = await client.callTool({ name: step.tool, arguments: step.arguments });
    if (step.result === null) return { tool: step.tool, outcome: 'allowed' };
    const change = resultChange(step.result, result);
    if (!change) return { tool: step.tool, outcome: 'allowed' };
    return { tool: step.tool, outcome: 'blocked', how: `result_${change}`, received: cap(texts(result.content).join('\n')), ask: false };
  } catch (error) {
    const evidence = errorEvidence(error);
    return { tool: step.tool, outcome: 'blocked', how: step.result === null ? 'call_refused' : 'result_withheld', ...evidence };
  }
}

/**
 * Replays `plan` (cases.js replayPlan) through one proxy session (a baseline session first when
 * the plan has one). Returns `{ verdict: 'block' | 'allow', ask, evidence }`; throws on a runner
 * or transport failure (scored `error`).
 */
export async function replayCase(plan, caseFile, options) {
  const names = [...new Set(plan.tools.map((t) => t.name))];
  const evidence = {};
  if (plan.baseline) {
    const session = await connect(options, [caseFile, '--baseline']);
    try {
      evidence.baseline = await listed(session.client, names);
    } finally {
      await session.close();
    }
  }
  const session = await connect(options, [caseFile]);
  try {
    if (plan.observe === 'tools') {
      const seen = await listed(session.client, names);
      evidence.tools = seen;
      const ask = seen.error?.ask === true;
      return { verdict: seen.missing.length > 0 ? 'block' : 'allow', ask, evidence };
    }
    const steps = [];
    for (const step of plan.steps) steps.push(await call(session.client, step));
    evidence.steps = steps;
    const blocked = steps.filter((s) => s.outcome === 'blocked');
    // A sequence is blocked when any call is; the ask flag says whether only an ask blocked it.
    return { verdict: blocked.length > 0 ? 'block' : 'allow', ask: blocked.length > 0 && blocked.every((s) => s.ask), evidence };
  } finally {
    await session.close();
  }
}
