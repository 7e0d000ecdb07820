import type { CardOf, DecisionCard } from '../../../../src-shared/schemas/review.js';
import { shortPlanHash } from '../../../store/review-queue.js';
import { budgetSummary, gatesText } from '../plan-format.js';
import { formatArgs } from '../review-format.js';
import { Fact } from '../../../components/Fact/Fact.js';

/*
 * The body of a card's Details, the one part of a card that depends on its kind (§0.5.3: "full
 * payload, verification checks, affected item list"). Everything is rendered as text.
 */

/** Which server and tool a card is about: the first facts of both MCP kinds. */
function ServerAndTool({ server, tool }: { server: string; tool: string }) {
  return (
    <>
      <Fact term="Server">
        <code>{server}</code>
      </Fact>
      <Fact term="Tool">
        <code>{tool}</code>
      </Fact>
    </>
  );
}

/** One MCP tool call: where it goes, the rule that asked, and the DLP-redacted arguments. */
function ToolCallDetails({ details }: { details: CardOf<'tool_call'>['details'] }) {
  return (
    <>
      <dl className="approval-card__facts">
        <ServerAndTool server={details.server} tool={details.tool} />
        <Fact term="Rule">
          <code>{details.rule || '(none)'}</code> in policy <strong>{details.policyName}</strong>
        </Fact>
      </dl>
      <p className="approval-card__details-note">Arguments as the proxy sent them, with secrets redacted:</p>
      <pre className="approval-card__args" aria-label="Arguments">
        {formatArgs(details.args)}
      </pre>
    </>
  );
}

function Checks({ checks }: { checks: CardOf<'plan'>['details']['verify'] }) {
  if (checks.length === 0) return <>None — nothing would decide success</>;
  return (
    <ul className="plan-card__checks" aria-label="Checks">
      {checks.map((check, index) => (
        <li key={`${index}-${check.name}`}>
          <strong>{check.name}</strong>: <code>{check.run}</code>
          {check.network ? ' ' : null}
          {check.network ? <span className="risk-badge risk-badge--high plan-card__network">needs network</span> : null}
        </li>
      ))}
    </ul>
  );
}

/**
 * One exact plan (spec 002 §5.11): the hash's first 8 characters (the terminal shows the same
 * ones), where it came from, its budget, the checks that alone decide success, skills, gates,
 * and the briefing as plain text.
 */
function PlanDetails({ details }: { details: CardOf<'plan'>['details'] }) {
  const short = shortPlanHash(details.planHash);
  return (
    <>
      <dl className="approval-card__facts">
        <Fact term="Plan">
          <strong className="plan-card__hash" title={details.planHash}>
            <code aria-label={`Plan hash starts ${short}`}>{short}</code>
          </strong>{' '}
          — <code>silas run</code> shows the same 8 characters
        </Fact>
        <Fact term="From">
          <code>{details.source}</code>
        </Fact>
        <Fact term="Budget">{budgetSummary(details.budget)}</Fact>
        <Fact term="Checks">
          <Checks checks={details.verify} />
        </Fact>
        <Fact term="Skills">{details.skills.length > 0 ? details.skills.join(', ') : 'None'}</Fact>
        <Fact term="Gates">{gatesText(details.gates)}</Fact>
        <Fact term="Hash">
          <code aria-label="Full plan hash">{details.planHash}</code>
        </Fact>
        <Fact term="Item">
          <code>{details.workItemId}</code> ({details.type})
        </Fact>
      </dl>
      <p className="approval-card__details-note">The plan&apos;s briefing, shown as plain text:</p>
      <pre className="approval-card__args" aria-label="Plan briefing">
        {details.body || '(no briefing)'}
      </pre>
    </>
  );
}

/** A tool whose definition changed after it was trusted: the hash trusted so far and the one announced now. */
function ToolChangeDetails({ details }: { details: CardOf<'tool_change'>['details'] }) {
  return (
    <dl className="approval-card__facts">
      <ServerAndTool server={details.server} tool={details.tool} />
      <Fact term="Approved">
        <code aria-label="Approved definition hash">{details.approvedHash}</code>
      </Fact>
      <Fact term="Pending">
        <code aria-label="Pending definition hash">{details.pendingHash}</code>
      </Fact>
    </dl>
  );
}

export function KindDetails({ card }: { card: DecisionCard }) {
  switch (card.kind) {
    case 'tool_call':
      return <ToolCallDetails details={card.details} />;
    case 'plan':
      return <PlanDetails details={card.details} />;
    case 'tool_change':
      return <ToolChangeDetails details={card.details} />;
  }
}
