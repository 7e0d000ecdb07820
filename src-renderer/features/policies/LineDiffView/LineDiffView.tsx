import { useId, useMemo } from 'react';
import { diffCounts, diffLineText, lineDiff } from '../line-diff.js';

export interface LineDiffViewProps {
  title: string;
  before: string;
  after: string;
}

/** A line diff of two texts, each line marked removed (−), added (+) or unchanged, titled by what it compares. */
export function LineDiffView({ title, before, after }: LineDiffViewProps) {
  const titleId = useId();
  const lines = useMemo(() => lineDiff(before, after), [before, after]);
  const { removed, added } = diffCounts(lines);
  return (
    <div className="line-diff">
      <p id={titleId} className="line-diff__title">
        {title}: {removed === 0 && added === 0 ? 'identical' : `${removed} removed, ${added} added`}
      </p>
      <pre className="line-diff__text" aria-labelledby={titleId} tabIndex={0}>
        {lines.map((line, index) => (
          <span key={index} className={`line-diff__line line-diff__line--${line.kind}`}>
            {diffLineText(line)}
            {'\n'}
          </span>
        ))}
      </pre>
    </div>
  );
}
