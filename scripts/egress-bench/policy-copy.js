// The policy a case runs under: the policy under test with the case's tool names added to
// `allowed_tools`. A template's allow-list names one server's tools, and the corpus calls tools of
// many servers (fetch, exec, send_message…); without this every unknown name would be refused and
// a block would say nothing about detection. Nothing else changes: tool_rules still decide for the
// tools they name (an `ask` rule stays an ask), and comments and order are kept.
import { readFileSync, writeFileSync } from 'node:fs';
import { isSeq, parseDocument } from 'yaml';

/** `text` with `names` appended to spec.allowed_tools (created when absent), or an error. */
function withAllowedTools(text, names) {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) throw new Error(`the policy does not parse: ${doc.errors[0].message}`);
  const spec = doc.get('spec', true);
  if (!spec || typeof spec.get !== 'function') throw new Error('the policy has no spec mapping');
  let list = spec.get('allowed_tools', true);
  if (!list) {
    spec.set('allowed_tools', doc.createNode([]));
    list = spec.get('allowed_tools', true);
  }
  if (!isSeq(list)) throw new Error('spec.allowed_tools is not a list');
  const present = new Set(list.items.map((item) => String(item?.value ?? item)));
  for (const name of names) if (!present.has(name)) list.add(doc.createNode(name));
  return doc.toString();
}

export function writePolicyCopy(policyFile, names, outFile) {
  writeFileSync(outFile, withAllowedTools(readFileSync(policyFile, 'utf8'), names));
  return outFile;
}
