import type { TaintLevel } from '../../../src-shared/silas/execution.js';
import type { AccessController } from '../access/access-controller.js';

/**
 * §5.1 step 6: the turn's toolset as the wrapper chain the spec names. Skill tools (none until
 * skills exist) join the core tools; role preparation shapes what each agent is shown; the
 * connection's access controller filters by access level (an owner-signed message bypasses the
 * levels, §5.6); tools that act on the world are marked approval-required, which in the Stream
 * means they run only inside a plan the person signed.
 */
export interface ToolEntry {
  name: string;
  description: string;
}

export interface Toolset {
  /** What the Proxy is shown (metadata only, §5.1 step 6.5). */
  proxy: ToolEntry[];
  /** What the Planner may plan with. */
  planner: ToolEntry[];
}

/** §5.1 step 6: the core retrieval tools every role sees. */
const CORE_TOOLS: readonly ToolEntry[] = [
  { name: 'memory_search', description: 'keyword search over what was said and stored in this conversation (ask for it with memory_queries)' },
  { name: 'context_inspection', description: 'what is in the context window now (its zones are shown above)' },
];

/** The executor's own tools; each runs only inside an approved plan. */
const EXECUTOR_TOOLS: readonly ToolEntry[] = [
  { name: 'shell_exec', description: 'run a program with an argument list in the sandboxed work directory (no network)' },
  { name: 'python_exec', description: 'run Python source in the sandboxed work directory (no network)' },
];

const APPROVAL_REQUIRED = '; runs only inside a plan the person approved';

/** Every tool name an owner connection holds (the controller's `ownerTools`). */
export function ownerToolNames(extra: readonly ToolEntry[]): string[] {
  return [...CORE_TOOLS, ...EXECUTOR_TOOLS, ...extra].map((tool) => tool.name);
}

export function buildToolset(input: { access: AccessController; taint: TaintLevel; skills?: readonly ToolEntry[]; extra: readonly ToolEntry[] }): Toolset {
  // SkillToolset: core tools plus work-item-scoped skill tools.
  const skill = [...CORE_TOOLS, ...(input.skills ?? [])];
  // PreparedToolset: the Planner also prepares the executor's tools and the connected servers'.
  const prepared = { proxy: skill, planner: [...skill, ...EXECUTOR_TOOLS, ...input.extra] };
  // FilteredToolset: only what the connection's level allows.
  const allowed = new Set(input.access.getAllowedTools({ taint: input.taint }));
  const filter = (tools: readonly ToolEntry[]) => tools.filter((tool) => allowed.has(tool.name));
  // ApprovalRequiredToolset: anything that acts waits for a signed plan.
  const acting = new Set([...EXECUTOR_TOOLS, ...input.extra].map((tool) => tool.name));
  const mark = (tools: ToolEntry[]) => tools.map((tool) => (acting.has(tool.name) ? { ...tool, description: `${tool.description}${APPROVAL_REQUIRED}` } : tool));
  return { proxy: mark(filter(prepared.proxy)), planner: mark(filter(prepared.planner)) };
}
