/**
 * The distinct words of a reading in the order added (`list`, which is the reading's `words`),
 * each with a flag. Found by comparing one by one while there are few (most strings the matcher
 * reads), then in a Map. Not a table of our own over our own hash: the words come from an agent,
 * and a hash whose low bits an agent can steer (FNV, whatever its seed) lets it send thousands of
 * words that share one slot and make each lookup walk them all; the Map's hash is the engine's.
 */
const FEW_WORDS = 8;

export class WordSet {
  readonly list: string[] = [];
  private readonly flags: number[] = [];
  private index: Map<string, number> | null = null;

  /** The word's flag, or -1 when the set does not hold it. */
  flag(w: string): number {
    if (this.index === null) {
      const list = this.list;
      for (let k = 0; k < list.length; k += 1) if (list[k] === w) return this.flags[k]!;
      return -1;
    }
    const k = this.index.get(w);
    return k === undefined ? -1 : this.flags[k]!;
  }

  /** Adds a word the set does not hold. */
  add(w: string, flag: number): void {
    const at = this.list.length;
    this.list.push(w);
    this.flags.push(flag);
    if (this.index !== null) this.index.set(w, at);
    else if (at === FEW_WORDS) this.index = new Map(this.list.map((word, k) => [word, k]));
  }
}
