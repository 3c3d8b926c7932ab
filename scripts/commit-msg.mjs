// The repository's commit-message rule (CONTRIBUTING.md), run by .githooks/commit-msg:
// the subject (the first line that is not a comment) is at most 72 characters and, when a body
// follows, a blank line separates them. `node scripts/commit-msg.mjs FILE` exits 1 with the
// reason on stderr when FILE breaks it.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const MAX_SUBJECT = 72;

/** What is wrong with a commit message, or null when it follows the rule. */
export function commitMessageProblem(message) {
  // Git removes comment lines and leading blank lines after the hook has run.
  const lines = message.split('\n').filter((l) => !l.startsWith('#'));
  while (lines.length > 0 && lines[0].trim() === '') lines.shift();
  if (lines.length === 0) return null; // git itself refuses an empty message
  const subject = lines[0].replace(/\s+$/, '');
  const length = [...subject].length;
  if (length > MAX_SUBJECT) {
    return `the subject is ${length} characters, over ${MAX_SUBJECT}: say what changed in the subject and put the detail and evidence in the body`;
  }
  if (lines.length > 1 && lines[1].trim() !== '') return 'leave a blank line between the subject and the body';
  return null;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: node scripts/commit-msg.mjs COMMIT_MESSAGE_FILE');
    process.exit(2);
  }
  const problem = commitMessageProblem(readFileSync(file, 'utf8'));
  if (problem) {
    console.error(`commit-msg: ${problem} (CONTRIBUTING.md; git commit --no-verify skips the check)`);
    process.exit(1);
  }
}
