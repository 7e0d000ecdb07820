/** Stands for the output of a command substitution (or a variable) that cannot be known. */
export const UNKNOWN_OUTPUT = '\u0002';
/** Stands for the shell's current directory (`$PWD`, `$(pwd)`): the matcher puts every candidate in. */
export const CURRENT_DIR = '\u0001';
