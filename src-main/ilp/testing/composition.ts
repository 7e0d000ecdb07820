import { specialistAgent, type LoadedSlice, type SliceSource } from '../agents/specialist.js';
import type { IlpAgent } from '../agents/agent.js';
import type { EnforcerOptions } from '../constitution/enforce.js';
import { checkConstitutionalHeader, type ConstitutionalHeader } from '../constitution/header.js';
import { MetaAgent, type AgentDirectory, type MetaAgentDeps } from '../composition/meta-agent.js';
import { IlpService, type CompositionSink } from '../service/ilp-service.js';
import type { CompositionResult } from '../composition/meta-agent.js';
import { FakeModel } from './fake-model.js';

/** Two slices per domain, as the navigator would find them. */
const TEST_SLICES: Record<string, LoadedSlice[]> = {
  finance: [{ id: 'budget-set-point', title: 'Budget set points', concepts: ['budget', 'set_point'], knowledge: 'A budget works like a set point.' }],
  biology: [{ id: 'cell-homeostasis', title: 'Cellular homeostasis', concepts: ['homeostasis', 'negative_feedback'], knowledge: 'Cells keep conditions steady through negative feedback.' }],
  systems: [{ id: 'feedback-loops', title: 'Feedback loops', concepts: ['feedback_loop'], knowledge: 'A loop senses, compares and corrects.' }],
};

const testSlices: SliceSource = { forQuery: (_query, domain) => TEST_SLICES[domain] ?? [] };

function directoryOf(agents: readonly IlpAgent[]): AgentDirectory {
  return { get: (id) => agents.find((a) => a.id === id), specialists: () => [...agents] };
}

export function header(fields: Partial<ConstitutionalHeader> = {}): ConstitutionalHeader {
  const checked = checkConstitutionalHeader({ domain: 'meta', depth: 0, budget_usd: 0, ...fields });
  if (!checked.ok) throw new Error(checked.message);
  return checked.header;
}

/** A meta-agent and three local specialists sharing one scripted model, and the service answering for them. */
export function testComposition(options: { enforcer?: EnforcerOptions; screen?: (text: string) => string | null; extra?: IlpAgent[]; memory?: MetaAgentDeps['memory'] } = {}) {
  const model = new FakeModel();
  const specialists = ['finance', 'biology', 'systems'].map((domain) => specialistAgent({ id: `${domain}-agent`, domain, description: `Knows ${domain}.`, model: () => Promise.resolve(model), slices: testSlices }));
  const agents = directoryOf([...specialists, ...(options.extra ?? [])]);
  const meta = new MetaAgent({ model: () => Promise.resolve(model), agents, enforcer: options.enforcer ?? {}, ...(options.screen ? { screen: options.screen } : {}), ...(options.memory ? { memory: options.memory } : {}) });
  const completed: CompositionResult[] = [];
  const sink: CompositionSink = { completed: (result) => completed.push(result), attentionExport: () => null, attentionStatistics: () => ({}) };
  const service = new IlpService({ meta, agents, enforcer: options.enforcer ?? {}, sink, ...(options.screen ? { screen: options.screen } : {}) });
  return { model, meta, agents, service, completed };
}
