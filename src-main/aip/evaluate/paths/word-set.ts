/** Distinct words found by comparing one by one, then (up to MAP_WORDS) in a Map, before WordSet makes its own table. */
const FEW_WORDS = 8;
const MAP_WORDS = 1024;
const EMPTY_SLOTS = new Int32Array(0);
const HASH_BASIS = (0x811c9dc5 ^ Math.floor(Math.random() * 0x100000000)) | 0;

/**
 * The distinct words in the order added (`list`, which is the reading's `words`), each with a
 * flag. Found by comparing one by one while there are few (most strings the matcher reads),
 * then in a Map, and past MAP_WORDS by open addressing over the words' hashes in typed arrays
 * (the Map costs less to make and fill for a short text). A Map of a long text's
 * distinct words walked chains of scattered entries, and its cost per lookup grew with the
 * text, where a miss here usually reads one number; a table of strings (a JS array) cost more
 * to make than to use (issue 11).
 */
export class WordSet {
  readonly list: string[] = [];
  private readonly flags: number[] = [];
  private small: Map<string, number> | null = null;
  /** Slot by hash: the word's index in `list` plus one (0: empty), and the word's hash. */
  private slots = EMPTY_SLOTS;
  private hashes = EMPTY_SLOTS;
  private lastWord: string | null = null;
  private lastHash = 0;

  /** The word's flag, or -1 when the set does not hold it. */
  flag(w: string): number {
    const list = this.list;
    if (list.length <= FEW_WORDS) {
      for (let k = 0; k < list.length; k += 1) if (list[k] === w) return this.flags[k]!;
      return -1;
    }
    if (this.small !== null) {
      const k = this.small.get(w);
      return k === undefined ? -1 : this.flags[k]!;
    }
    const mask = this.slots.length - 1;
    const h = hashOf(w);
    // A word not found is added next: its hash is kept for `add`.
    this.lastWord = w;
    this.lastHash = h;
    for (let k = h & mask; ; k = (k + 1) & mask) {
      const at = this.slots[k]!;
      if (at === 0) return -1;
      if (this.hashes[k] === h && list[at - 1] === w) return this.flags[at - 1]!;
    }
  }

  /** Adds a word the set does not hold. */
  add(w: string, flag: number): void {
    const list = this.list;
    const index = list.length;
    list.push(w);
    this.flags.push(flag);
    if (index < FEW_WORDS) return;
    if (index < MAP_WORDS) {
      if (this.small === null) {
        this.small = new Map();
        for (let k = 0; k < index; k += 1) this.small.set(list[k]!, k);
      }
      this.small.set(w, index);
      return;
    }
    if (this.small !== null) {
      this.small = null;
      this.grow(4 * MAP_WORDS);
      for (let k = 0; k < index; k += 1) this.put(hashOf(list[k]!), k + 1);
    }
    if (2 * (index + 1) > this.slots.length) this.grow(this.slots.length * 2);
    this.put(this.lastWord === w ? this.lastHash : hashOf(w), index + 1);
  }

  private put(h: number, at: number): void {
    const mask = this.slots.length - 1;
    let k = h & mask;
    while (this.slots[k] !== 0) k = (k + 1) & mask;
    this.slots[k] = at;
    this.hashes[k] = h;
  }

  private grow(size: number): void {
    const { slots, hashes } = this;
    this.slots = new Int32Array(size);
    this.hashes = new Int32Array(size);
    for (let k = 0; k < slots.length; k += 1) if (slots[k] !== 0) this.put(hashes[k]!, slots[k]!);
  }
}

/**
 * FNV-1a over the word's UTF-16 code units, from a basis drawn per process: the words come from
 * an agent, and words made to share one hash would make each lookup walk them all.
 */
function hashOf(w: string): number {
  let h = HASH_BASIS;
  for (let k = 0; k < w.length; k += 1) h = Math.imul(h ^ w.charCodeAt(k), 0x01000193);
  return h;
}

