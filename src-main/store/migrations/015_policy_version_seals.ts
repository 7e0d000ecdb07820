/**
 * Each saved policy version carries the owner's seal (keys/sealed-state.ts, kind 'policy-version'):
 * a version whose text and hash were changed together in the database no longer verifies, so
 * History shows it as changed outside Silas and Restore refuses it (docs/policy-editor.md
 * "History"). Versions saved before this column existed have no seal: they are trusted only when
 * their text carries a valid owner signature.
 */
export const sql = `
ALTER TABLE policy_versions ADD COLUMN seal TEXT;
`;
