import { openaiReply, type ScriptedOpenAIServer } from '../../llm/testing/scripted-openai-server.js';

/*
 * Knowledge distillation as the runtime meets it, for the runtime test and the Playwright test
 * (docs/ilp.md "Knowledge distillation"): three different queries about a reserve and spending,
 * each answered by the meta-agent through the finance specialist with the same two concepts, and
 * the slice the planner model writes from them.
 */

export const DISTILL_QUERIES = ['How can I stabilize my monthly spending?', 'What keeps household savings from drifting?', 'Why should an emergency fund have a target level?'];

/** The id the engine gives the slice learned from the queries' two concepts. */
export const DISTILLED_SLICE_ID = 'learned-reserve_target-spending_feedback';

export const DISTILLED_TITLE = 'A reserve target holds spending steady';

/** The replies of one answered query: decomposition, the finance specialist, the synthesis. */
export function scriptAnsweredQuery(server: ScriptedOpenAIServer, usage: { prompt_tokens: number; completion_tokens: number }): void {
  server.http.enqueue(
    openaiReply.object({ domains: ['finance'], reasoning: 'A question about money held at a level.' }, usage),
    openaiReply.object({ answer: 'Keep a reserve with a target and correct small drifts monthly.', concepts: ['reserve_target'], confidence: 0.88, reasoning: 'A reserve with a target level works like a set point: drift is corrected in small steps each month.', sources: [], suggestions_to_invoke: [] }, usage),
    openaiReply.object({ answer: 'Set a target reserve and correct drift monthly: spending is held by feedback.', concepts: ['reserve_target', 'spending_feedback'], confidence: 0.9, reasoning: 'The finance specialist described a target reserve corrected by monthly feedback; that answers the question.', emergent_insights: [] }, usage),
  );
}

/** The planner model's slice for the pattern the three queries make. */
export function scriptDistilledSlice(server: ScriptedOpenAIServer, usage: { prompt_tokens: number; completion_tokens: number }): void {
  server.http.enqueue(
    openaiReply.object(
      {
        title: DISTILLED_TITLE,
        concepts: ['reserve_target', 'spending_feedback'],
        knowledge: 'A household reserve with a target level behaves like a set point.\nEach month compare the balance to the target and correct the difference in a small step; large corrections overshoot.',
        rationale: 'Three answered queries about spending and savings agreed that a reserve target corrected monthly keeps spending steady.',
        confidence: 0.86,
      },
      usage,
    ),
  );
}
