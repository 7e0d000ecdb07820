import type { CardOf, DecisionCard } from '../../../../src-shared/schemas/review.js';
import { shortPlanHash } from '../../../store/review-queue.js';
import { budgetSummary, gatesText } from '../plan-format.js';
import { formatArgs } from '../review-format.js';
import { Fact } from '../../../components/Fact/Fact.js';
import { isUnsafeShownCodePoint } from '../../../../src-shared/text/unsafe-chars.js';
import { TaintBadge } from '../../../components/TaintBadge/TaintBadge.js';
import { formatLocalTime } from '../../activity/audit-format.js';
import { memoryTypeLabel, recalledText } from '../../memory/memory-format.js';

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

/**
 * One MCP tool call: where it goes, the rule that asked, and the DLP-redacted arguments. A
 * server's answer held by the injection detectors says so, and shows what they found instead
 * (the hash the approval binds stays in the facts).
 */
function ToolCallDetails({ details }: { details: CardOf<'tool_call'>['details'] }) {
  if (details.subject === 'result') return <HeldAnswerDetails details={details} />;
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

/** A server's answer waiting for the person: which call it answers, its hash, and the findings, invisible characters spelled out. */
function HeldAnswerDetails({ details }: { details: CardOf<'tool_call'>['details'] }) {
  const args = details.args;
  const hash = args !== null && typeof args === 'object' && !Array.isArray(args) && typeof args.result_sha256 === 'string' ? args.result_sha256 : '';
  const findings = details.findings ?? [];
  return (
    <>
      <dl className="approval-card__facts">
        <ServerAndTool server={details.server} tool={details.tool} />
        <Fact term="Held">
          The server&apos;s answer to this call, not yet seen by the agent (policy <strong>{details.policyName}</strong>)
        </Fact>
        <Fact term="Answer">
          <code aria-label="Answer hash">{hash}</code>
        </Fact>
      </dl>
      <FoundIn what="answer" findings={findings} />
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

type Finding = NonNullable<CardOf<'tool_change'>['details']['findings']>[number];

/** One run of an excerpt: text as it is, or one character that would hide or reorder text, spelled out. */
export interface ShownPart {
  text: string;
  escaped: boolean;
}

/**
 * An excerpt split so that every character of the shared unsafe set (src-shared/text/unsafe-chars.ts:
 * controls, bidi marks, zero-width and other invisible characters) is shown as its code point
 * (`U+200B`): a poisoned definition hides instructions exactly with those, and the person must
 * see them, not have them act on the card.
 */
export function shownParts(text: string): ShownPart[] {
  const parts: ShownPart[] = [];
  let plain = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (!isUnsafeShownCodePoint(code)) {
      plain += ch;
      continue;
    }
    if (plain) parts.push({ text: plain, escaped: false });
    plain = '';
    parts.push({ text: `U+${code.toString(16).toUpperCase().padStart(4, '0')}`, escaped: true });
  }
  if (plain) parts.push({ text: plain, escaped: false });
  return parts;
}

/** Text with its unsafe characters spelled out; rendered as text, never as markup. */
export function Shown({ text }: { text: string }) {
  return (
    <>
      {shownParts(text).map((part, index) =>
        part.escaped ? (
          <span key={index} className="shown-char" title="a character that is invisible or changes how text reads">
            [{part.text}]
          </span>
        ) : (
          part.text
        ),
      )}
    </>
  );
}

/** The findings in a definition or an answer, introduced; nothing when there are none. */
function FoundIn({ what, findings }: { what: 'definition' | 'answer'; findings: readonly Finding[] }) {
  if (findings.length === 0) return null;
  return (
    <>
      <p className="approval-card__details-note">What the detectors found in the {what}, invisible characters spelled out:</p>
      <Findings findings={findings} />
    </>
  );
}

/** What the detectors found: rule, where, why, and the offending text highlighted. */
function Findings({ findings }: { findings: readonly Finding[] }) {
  return (
    <ul className="tool-change__findings" aria-label="Findings">
      {findings.map((finding, index) => (
        <li key={`${index}-${finding.rule}`}>
          <code>{finding.rule}</code> in <code>{finding.path || 'the text'}</code>: <Shown text={finding.description} />
          <br />
          <mark aria-label={`Found in ${finding.path || 'the text'}`}>
            <Shown text={finding.excerpt} />
          </mark>
        </li>
      ))}
    </ul>
  );
}

/**
 * A tool whose definition waits for the person: the hash trusted so far (none when it was held at
 * first sight) and the one announced now, and what the detectors found in it. The findings come
 * from an unsealed column: they explain the card, the pin's seal decides what is offered.
 */
function ToolChangeDetails({ details }: { details: CardOf<'tool_change'>['details'] }) {
  const findings = details.findings ?? [];
  return (
    <>
      <dl className="approval-card__facts">
        <ServerAndTool server={details.server} tool={details.tool} />
        <Fact term="Approved">
          {details.approvedHash === null ? 'None: held the first time the server announced it' : <code aria-label="Approved definition hash">{details.approvedHash}</code>}
        </Fact>
        <Fact term="Pending">
          <code aria-label="Pending definition hash">{details.pendingHash}</code>
        </Fact>
      </dl>
      <FoundIn what="definition" findings={findings} />
    </>
  );
}

/**
 * A slice distillation learned from episodic memory (docs/ilp.md "Knowledge distillation"): what
 * it was learned from, its scores, and the exact text the specialists would read — beside the
 * version in force for an update. The text is model-written: shown as text, never rendered.
 */
function IlpSliceDetails({ details }: { details: CardOf<'ilp_slice'>['details'] }) {
  const pattern = details.pattern;
  return (
    <>
      <dl className="approval-card__facts">
        <Fact term="Slice">
          <code>{details.sliceId}</code> version {details.version} ({details.change === 'created' ? 'new' : 'update'}) in <strong>{details.domain}</strong>
        </Fact>
        <Fact term="Concepts">{details.concepts.join(', ') || '(none)'}</Fact>
        <Fact term="Scores">
          confidence {details.confidence.toFixed(2)}, constitutional {details.constitutionalScore.toFixed(2)}
        </Fact>
        {pattern ? (
          <Fact term="Learned from">
            {pattern.frequency} answered queries, {Math.round(pattern.successRate * 100)}% successful
          </Fact>
        ) : null}
      </dl>
      {pattern && pattern.queries.length > 0 ? (
        <ul className="approval-card__details-note" aria-label="Queries it was learned from">
          {pattern.queries.map((query, index) => (
            <li key={index}>{query}</li>
          ))}
        </ul>
      ) : null}
      {details.warnings.length > 0 ? (
        <ul aria-label="Enforcer warnings">
          {details.warnings.map((warning, index) => (
            <li key={index}>{warning}</li>
          ))}
        </ul>
      ) : null}
      <p className="approval-card__details-note">{details.rationale}</p>
      <pre className="approval-card__args" aria-label="Proposed slice">
        {details.text}
      </pre>
      {details.previousText !== null ? (
        <pre className="approval-card__args" aria-label="Slice in force now">
          {details.previousText}
        </pre>
      ) : null}
    </>
  );
}

/**
 * A working memory the owner is asked to verify (spec 002 §3.8): the memory as it is now, whose
 * words it is (external text marked from outside and warned about: once verified it is recalled
 * as confirmed by the owner), where it came from, how often it was recalled, and who asked and
 * why. The content is shown as text with invisible characters spelled out, never rendered.
 */
function MemoryPromotionDetails({ details }: { details: CardOf<'memory_promotion'>['details'] }) {
  return (
    <>
      <p className="approval-card__details-note">The memory, as Silas would recall it:</p>
      <blockquote className="memory-card__content" aria-label="Memory content">
        <Shown text={details.content} />
      </blockquote>
      {details.taint === 'external' ? (
        <p className="notice notice--warn memory-card__outside">
          This memory came from outside — a tool, a web page or another person — not from you. Verify it only if you know it is true.
        </p>
      ) : null}
      <dl className="approval-card__facts">
        <Fact term="Type">{memoryTypeLabel(details.memoryType)}</Fact>
        <Fact term="Whose words">
          <TaintBadge taint={details.taint} />
        </Fact>
        <Fact term="Source">
          <code>{details.sourceKind}</code>, stored {formatLocalTime(details.createdAt)}
        </Fact>
        <Fact term="Recalled">{recalledText(details.accessCount)}</Fact>
        <Fact term="Asked by">
          <Shown text={details.requestedBy} />
        </Fact>
        {details.reason ? (
          <Fact term="Reason">
            <Shown text={details.reason} />
          </Fact>
        ) : null}
        <Fact term="Memory">
          <code>{details.memoryId}</code>
        </Fact>
      </dl>
    </>
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
    case 'ilp_slice':
      return <IlpSliceDetails details={card.details} />;
    case 'memory_promotion':
      return <MemoryPromotionDetails details={card.details} />;
  }
}
