/*
 * The names a policy or a models file uses to refer to keyring secrets and environment variables
 * (docs/mcp-sandbox.md "Secrets", docs/silas/models.md): one rule for the schemas that read them
 * and for the keyring that stores them (`src-main/keys/named-secrets.ts`).
 */

/** 1 to 64 characters, letters, digits, "_", "." and "-", starting with a letter or digit; never ":" (the keyring's namespace separator). */
export const SECRET_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** A POSIX environment variable name. */
export const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
