import { describe, expect, it } from 'vitest';
import { riskOf } from './tool-call.js';

// The card's first risk label (docs/review.md): a destructive verb in the tool's name, as a word.
// A substring match cried wolf on harmless tools ("rm" in format, "run" in brunch, "pay" in
// display_payload), and a label that is often wrong teaches the person to ignore it.
describe('riskOf', () => {
  it('is high for a destructive verb as a word of the name, in any naming style or inflection', () => {
    for (const tool of ['delete_file', 'deleteFile', 'remove-branch', 'rm', 'rm_rf', 'rmdir', 'runCommand', 'shell.exec', 'execute_query', 'write_file', 'overwrite', 'send_email', 'deploys', 'drop_table', 'kill_process', 'transfer_funds', 'pay', 'git/push', 'deleted_items_purge', 'pushes']) {
      expect(riskOf(tool), tool).toBe('high');
    }
  });

  it('is medium for a name that holds those letters only inside other words', () => {
    for (const tool of ['format_document', 'brunch_menu', 'display_payload', 'read_file', 'list_directory', 'dropdown_options', 'runtime_info', 'sender_profile', 'pushover_status', 'search', 'warmup']) {
      expect(riskOf(tool), tool).toBe('medium');
    }
  });
});
