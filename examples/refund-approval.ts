// Human approval as a client-executed tool: the demo agent `refund-desk` calls `request_approval`,
// the turn pauses, this script asks a person at the terminal, sends the answer, and the agent
// resumes with it. Start Baton first (`npm start`), then:
//   BATON_API_KEY=$KEY npx tsx examples/refund-approval.ts          # asks you
//   BATON_API_KEY=$KEY npx tsx examples/refund-approval.ts --yes    # approves as manager@company.com (or APPROVE=yes)
// BATON_URL defaults to http://127.0.0.1:8080.
import { createInterface } from 'node:readline/promises';
import { Baton } from '@baton/client';

if (!process.env.BATON_API_KEY) {
  console.error('Set BATON_API_KEY to a Baton API key (the admin key npm start printed, or BATON_ADMIN_KEY).');
  process.exit(1);
}
const autoApprove = process.argv.includes('--yes') || process.env.APPROVE === 'yes';
if (!autoApprove && !process.stdin.isTTY) {
  console.error('No terminal to ask on: pass --yes (or set APPROVE=yes) to approve as manager@company.com.');
  process.exit(1);
}

const baton = new Baton({
  baseURL: process.env.BATON_URL ?? 'http://127.0.0.1:8080',
  apiKey: process.env.BATON_API_KEY,
});

/** The manager's answer, in the shape the tool's response_schema declares: {approved, approved_by, note?}. */
async function askManager(
  action: string,
  amount: number,
): Promise<{ approved: boolean; approved_by: string; note?: string }> {
  if (autoApprove) return { approved: true, approved_by: 'manager@company.com' };
  const terminal = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const approved = /^y(es)?$/i.test((await terminal.question(`Approve ${action} of $${amount}? [y/N] `)).trim());
    const approvedBy = (await terminal.question('Your email: ')).trim() || 'manager@company.com';
    return approved
      ? { approved, approved_by: approvedBy }
      : { approved, approved_by: approvedBy, note: 'Not approved by the manager.' };
  } finally {
    terminal.close();
  }
}

const thread = await baton.threads.create({ agent: 'refund-desk' });
const answer = await baton.threads.run(thread.id, 'I need approval to process a $500 refund', {
  tools: {
    // Runs while the turn is paused; what it returns is sent back as the tool result.
    request_approval: async ({ action, amount }) => askManager(String(action), Number(amount)),
  },
  // A person may take a while to answer: no time limit on this handler.
  handlerTimeoutMs: Infinity,
});

for (const call of answer.toolCalls)
  console.log(`tool call: ${call.name}(${JSON.stringify(call.input)}) -> ${call.result}`);
console.log(`\n${answer.text}`);
