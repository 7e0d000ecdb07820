import { useId } from 'react';

/**
 * A unified diff of one file, titled and labelled by the file's name so a reader (and a test)
 * finds it by that name: the wrap preview shows one per file it would change.
 */
export function FileDiff({ file, diff }: { file: string; diff: string }) {
  const titleId = useId();
  return (
    <>
      <p id={titleId} className="wrap-flow__diff-title">
        Diff of {file}
      </p>
      <pre className="wrap-flow__diff" aria-labelledby={titleId} tabIndex={0}>
        <code>{diff}</code>
      </pre>
    </>
  );
}
