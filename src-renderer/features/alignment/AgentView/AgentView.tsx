import { CardEditor } from '../CardEditor/CardEditor.js';
import { DriftCharts } from '../DriftCharts/DriftCharts.js';
import { TraceInspector } from '../TraceInspector/TraceInspector.js';
import { ViolationList } from '../ViolationList/ViolationList.js';

/** The shown agent: its drift charts, its violations, the trace inspector and its card editor. */
export function AgentView({ agentId }: { agentId: string }) {
  return (
    <div className="alignment-agent-view">
      <p className="alignment-agent-view__title">
        <code>{agentId}</code>
      </p>
      <DriftCharts />
      <ViolationList />
      <TraceInspector />
      <CardEditor />
    </div>
  );
}
