import type { IlpComposition } from '../../../store/ilp-state.js';
import { constitutionalText, principleText, statusText, usdText } from '../ilp-format.js';

export interface ReplayComparisonProps {
  original: IlpComposition;
  replay: IlpComposition;
  onOpen(id: string): void;
}

/** One line for the outcome: "Original 200 OK · Replay 429 Budget Exceeded". */
function comparisonText(original: IlpComposition, replay: IlpComposition): string {
  return `Original ${statusText(original.status)} · Replay ${statusText(replay.status)}`;
}

/**
 * A replay's outcome beside the original's (docs/ilp.md "Inspector"): what changing the limits
 * changed, row by row — status, constitutional status, the gravest principle, cost.
 */
export function ReplayComparison({ original, replay, onOpen }: ReplayComparisonProps) {
  const rows: [string, string, string][] = [
    ['Status', statusText(original.status), statusText(replay.status)],
    ['Constitutional status', constitutionalText(original.constitutional_status), constitutionalText(replay.constitutional_status)],
    ['Principle', principleText(original.hop_list), principleText(replay.hop_list)],
    ['Cost', usdText(original.cost_usd), usdText(replay.cost_usd)],
  ];
  return (
    <div className="ilp-comparison">
      <p role="status" aria-label="Replay outcome" className="ilp-comparison__line">
        {comparisonText(original, replay)}
      </p>
      <table className="ilp-comparison__table">
        <caption>The original beside its replay</caption>
        <thead>
          <tr>
            <th scope="col" />
            <th scope="col">Original</th>
            <th scope="col">Replay</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([what, before, after]) => (
            <tr key={what} className={before === after ? undefined : 'ilp-comparison__changed'}>
              <th scope="row">{what}</th>
              <td>{before}</td>
              <td>{after}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <button type="button" className="button" onClick={() => onOpen(replay.id)}>
        Inspect the replay
      </button>
    </div>
  );
}
