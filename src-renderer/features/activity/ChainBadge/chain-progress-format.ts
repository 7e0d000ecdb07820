import type { ChainProgress } from '../../../store/chain-slice.js';
import { formatCount } from '../audit-format.js';

/** The line under the badge while the runtime's verification thread works. */
export function chainProgressText(progress: ChainProgress): string {
  const what = progress.mode === 'full' ? 'Checking every entry' : 'Checking new entries';
  if (progress.total === 0) return `${what}…`;
  return `${what}… ${formatCount(Math.min(progress.checked, progress.total))} of ${formatCount(progress.total)}`;
}

/** The badge's tooltip: when, and how much the last run checked itself. */
export function chainVerifiedTitle(verifiedAt: string, mode: 'new' | 'full' | null, formatTime: (iso: string) => string): string {
  const scope = mode === 'new' ? ' (entries new since the previous check; "Re-verify chain" checks every entry)' : '';
  return `Verified ${formatTime(verifiedAt)}${scope}`;
}
