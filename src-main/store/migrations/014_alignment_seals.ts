/**
 * Alignment's page state sealed with the ledger key (docs/alignment.md "Attacker's side",
 * docs/architecture.md §2 "Sealed state"): each trace row carries the MAC of what the page shows
 * of it (its verdict, violations, drift figures, the chain entries it names), and each agent's
 * counts the MAC of its figures. A row written or edited by anything but the recorder fails its
 * seal: it neither counts as "already recorded" nor silences a violation. Rows written before this
 * migration have no seal; the views check them against the chain like any other.
 */
export const sql = `
ALTER TABLE aap_traces ADD COLUMN seal TEXT;
ALTER TABLE aap_agent_counts ADD COLUMN seal TEXT;
`;
