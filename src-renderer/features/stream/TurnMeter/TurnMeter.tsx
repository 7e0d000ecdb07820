import { useCockpit } from '../../../app/cockpit-context.js';
import { formatCost, formatTokens, turnOutcomeText } from '../stream-format.js';

/** What the last turn spent (§5.13): tokens by kind and money, or that no price is known. */
export function TurnMeter() {
  const last = useCockpit((s) => s.stream.lastTurn);
  if (!last) return null;
  const { usage } = last;
  return (
    <section aria-label="Turn usage" className="turn-meter">
      <h2 className="stream-side__heading">Last turn</h2>
      <dl className="turn-meter__facts">
        <div>
          <dt>Prompt</dt>
          <dd>{formatTokens(usage.prompt_tokens)} tokens</dd>
        </div>
        <div>
          <dt>Input</dt>
          <dd>{formatTokens(usage.input_tokens)} tokens</dd>
        </div>
        <div>
          <dt>Output</dt>
          <dd>{formatTokens(usage.output_tokens)} tokens</dd>
        </div>
        <div>
          <dt>Cost</dt>
          <dd>{formatCost(usage.cost_usd)}</dd>
        </div>
      </dl>
      <p className="turn-meter__note">
        {usage.model_calls} model {usage.model_calls === 1 ? 'call' : 'calls'}, {turnOutcomeText(last.outcome)}
      </p>
    </section>
  );
}
