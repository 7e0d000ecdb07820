import type { StateSeals } from '../../keys/sealed-state.js';
import type { IlpEpisodeSealer } from '../../store/repositories/ilp-episodes.js';

/*
 * ILP episodes are sealed state (docs/architecture.md §2 "Sealed state"): the cache of spec 004
 * §9.2 item 3 hands a stored answer back as if the agents had just given it, under the
 * constitution's confidence threshold, so a row a database writer planted or rewrote (its
 * response, success, confidence or age) must never answer. Episodes are runtime state, sealed with
 * the ledger key's MAC over every column that decides a cached answer.
 */
export function episodeSealer(seals: Pick<StateSeals, 'seal' | 'check'>): IlpEpisodeSealer {
  return {
    seal: (episodeId, fields) => seals.seal('ledger', 'ilp-episode', episodeId, fields),
    check: (episodeId, fields, seal) => seals.check('ledger', 'ilp-episode', episodeId, fields, seal).ok,
  };
}
