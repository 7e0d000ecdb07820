import { readBoundedFile as readRegularFile } from '../../home/bounded-file.js';
import { ILP_LIMITS } from '../../ilp/protocol/limits.js';

/*
 * Files the `silas ilp` commands read (a message, a response, a request body): at most one
 * message's size, and only regular files, so a FIFO or a device never blocks or floods a command.
 */

/** The most a message file may be: one message's headers and body, and the blank line between. */
const FILE_MAX = ILP_LIMITS.headerSection + ILP_LIMITS.body + 4;

/** The file's bytes, or why it cannot be read; a FIFO or device is refused before it is read. */
export function readBoundedFile(file: string, max = FILE_MAX): Uint8Array | string {
  const read = readRegularFile(file, max);
  return read.ok ? read.bytes : read.message;
}
