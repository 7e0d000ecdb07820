import RE2 from 're2';
import { hasOrder, isReported, ORDER_SOURCES, paragraphEnd, sentenceEnd } from './injection-speech.js';

/*
 * The built-in injection rules (docs/threat-detection.md, "Injection"). Each rule has prefilter
 * patterns, which all go into one RE2.Set so ordinary text costs one linear pass, and a confirmation
 * run only on text the set flagged: the rule's own RE2 patterns plus the judgements of
 * injection-speech.ts (an order, not reported speech). Confirmation looks at MAX_MATCHES matches
 * per rule and view at most, each within a bounded window, so a hostile text cannot make it
 * quadratic; the cap is high enough that padding an attack behind benign lookalikes costs the
 * attacker more than a hundred of them in one string.
 */

export interface RuleSpan {
  start: number;
  end: number;
  /** What was seen, in words, for the finding's description. */
  why: string;
}

export interface InjectionRule {
  id: string;
  description: string;
  /** Prefilter sources for the set (case-insensitive). */
  prefilter: string[];
  confirm(text: string): RuleSpan[];
}

const MAX_MATCHES = 128;
const FLAGS = 'giu';

/** Every match of `regex` (global) in `text`, at most MAX_MATCHES. */
function matches(regex: RE2, text: string): RegExpExecArray[] {
  const out: RegExpExecArray[] = [];
  regex.lastIndex = 0;
  for (let m = regex.exec(text); m !== null && out.length < MAX_MATCHES; m = regex.exec(text)) {
    out.push(m);
    if (m[0].length === 0) regex.lastIndex += 1;
  }
  return out;
}

const IGNORE_SRC = [
  '\\b(?:ignore|disregard|forget|discard|drop|abandon)\\s+(?:(?:all|any|every|the|your|of|my|these|those)\\s+){0,3}(?:previous|prior|above|earlier|preceding|former|original|initial|system|safety|old|existing)\\s+(?:[a-z]+\\s+){0,2}?(?:instructions?|rules|context|directives?|prompts?|guidelines|constraints|guardrails|restrictions|orders|programming)\\b',
  '\\b(?:override|bypass)\\s+(?:(?:all|any|the|your)\\s+){0,2}(?:previous|prior|system|safety|original)\\s+(?:instructions|rules|directives|prompts?|guidelines|guardrails|restrictions)\\b',
  '\\b(?:new|updated|revised|real|actual|true)\\s+(?:system\\s+|priority\\s+|secret\\s+)?(?:instructions?|directives?|orders)\\s*(?:are\\s*)?:',
  '\\byou\\s+are\\s+now\\s+(?:in\\s+)?(?:developer|dev|god|jailbreak|jailbroken|unrestricted|unfiltered|dan|admin)\\s+mode\\b|\\bdo\\s+anything\\s+now\\b|\\bact\\s+as\\s+(?:dan|an?\\s+(?:unrestricted|unfiltered|jailbroken))\\b|\\bfrom\\s+now\\s+on,?\\s+you\\s+(?:will|must|are|shall)\\b',
];
const IGNORE = new RE2(IGNORE_SRC.join('|'), FLAGS);
const NEW_INSTRUCTIONS = new RE2(IGNORE_SRC[2]!, 'iu');

const AUTHORITY_SRC = [
  '\\[\\s*(?:system|admin|administrator|developer|root|operator|sysadmin)(?:\\s+(?:note|notice|message|update|override|directive|instructions?|alert))?\\s*\\]',
  '\\b(?:system|admin|administrator|sysadmin|developer|root|operator)(?:\\s+(?:administrator|admin|note|notice|message|update|override|directive|instructions?|alert|prompt|command|announcement|warning))+\\s*:',
  '(?:^|[\\n>])\\s*system\\s*:',
  '\\b(?:note|message|instructions?|attention|reminder|notice)\\s+(?:to|for)\\s+(?:the\\s+|any\\s+|all\\s+)?(?:ai\\s+)?(?:ai|assistants?|agents?|models?|llms?|language\\s+models?|chatbots?|claude|gpt|copilot)\\b',
  '\\b(?:dear|hey|attention|hello)\\s*,?\\s+(?:ai|assistant|agent|llm|model|chatbot|claude|gpt)\\b',
  '\\bif\\s+you\\s+are\\s+(?:an?\\s+)?(?:ai|llm|language\\s+model|assistant|agent|chatbot)\\b',
  '\\b(?:ai|llm)\\s+(?:agents?|assistants?|models?)\\s+(?:reading|processing|parsing|summari[sz]ing)\\s+this\\b',
  '\\byou\\s+(?:now\\s+)?have\\s+(?:been\\s+granted\\s+)?(?:(?:full|elevated|unrestricted|admin|administrator|root|superuser)\\s+)+(?:access|privileges?|permissions?|rights)\\b',
];
const AUTHORITY = new RE2(AUTHORITY_SRC.join('|'), FLAGS);

const ROLE_DIRECT_SRC = [
  '<\\|(?:im_start|im_end|im_sep|system|user|assistant|endoftext|begin_of_text|end_of_text|start_header_id|end_header_id|eot_id|eom_id)\\|>',
  '\\[/?INST\\]',
  '<</?SYS>>',
  '</\\s*system\\s*>\\s*(?:[a-z]|<\\s*(?:user|human|assistant)\\s*>)',
  '<\\s*system\\s*>\\s*(?:you|ignore|always|never|from\\s+now|your)\\b',
  '(?:^|\\n)\\s*#{2,4}\\s*(?:system|assistant|instruction)\\s*:',
];
const ROLE_DIRECT = new RE2(ROLE_DIRECT_SRC.join('|'), FLAGS);
const HUMAN_TURN = new RE2('\\n\\s*\\n\\s*(?:Human|User)\\s*:', 'gu');
const ASSISTANT_TURN = new RE2('\\n\\s*\\n\\s*Assistant\\s*:', 'u');

const HIDDEN_SRC = ['<!--', 'display\\s*:\\s*none', 'visibility\\s*:\\s*hidden', '<iframe', '<script', 'font-size\\s*:\\s*0', 'opacity\\s*:\\s*0', '(?:width|height)\\s*:\\s*0'];
/** How far into a comment or element body the instruction check looks. */
const BODY_WINDOW = 4000;
const HIDDEN_ELEMENT = new RE2(
  '<([a-z][a-z0-9]*)\\b[^>]{0,500}?(?:display\\s*:\\s*none|visibility\\s*:\\s*hidden|font-size\\s*:\\s*0(?:px|pt|em)?\\s*[;"\']|opacity\\s*:\\s*0(?:\\.0+)?\\s*[;"\']|(?:width|height)\\s*:\\s*0(?:px)?\\s*[;"\'])[^>]{0,500}>([^<]{0,1000})',
  FLAGS,
);
const SCRIPT_OPEN = new RE2('<(script|iframe)\\b[^>]{0,1000}>', FLAGS);

const CALL_SRC = [
  '\\b(?:call|calling|invoke|invoking|use|using|run|running|execute|executing|trigger|triggering)\\s+(?:the\\s+)?[`\'"]?[a-z][\\w.-]{1,40}[`\'"]?\\s+(?:tool|function)\\b',
  '\\b(?:call|calling|invoke|invoking)\\s+[`\'"]?[a-z][\\w.-]{1,40}[`\'"]?\\s+with\\b',
];
const CALL = new RE2(CALL_SRC.join('|'), FLAGS);
const SEND_SRC =
  '\\b(?:send|post|upload|transmit|forward|exfiltrate|email|e-mail|leak|submit|pipe|copy)\\s+(?:(?:all|the|its|their|your|my|every|any|this|these|those|full|complete|entire|current)\\s+){0,3}(?:contents?|data|files?|output|results?|secrets?|keys?|tokens?|credentials?|passwords?|conversation|chat|history|environment|env|variables|system\\s+prompt|prompt|it|them|everything)\\b';
const SEND = new RE2(SEND_SRC, FLAGS);
const SENSITIVE_OBJECT = new RE2('\\b(?:contents?|secrets?|keys?|tokens?|credentials?|passwords?|conversation|chat|history|environment|env|system\\s+prompt|everything)\\b', 'iu');
const DESTINATION = new RE2('\\b(?:to|at|into|via|using)\\s+(?:https?://|[\\w.+-]+@[\\w-]+\\.[a-z]{2,}|\\S+\\.(?:com|net|org|io|xyz|ru|cn|dev|app)\\b|the\\s+(?:url|address|endpoint|server|webhook))', 'iu');
const FETCH_SRC = '\\b(?:you\\s+must|please|immediately|now)\\s+(?:fetch|visit|navigate\\s+to|open|browse\\s+to|download|curl|go\\s+to|load)\\s+https?://';
const FETCH = new RE2(FETCH_SRC, FLAGS);
const PAYLOAD = new RE2('https?://|/etc/(?:shadow|passwd)|~/\\.ssh|\\bid_(?:rsa|ed25519|ecdsa)\\b|\\.env\\b|\\bcredentials\\b|\\|\\s*(?:ba|z)?sh\\b', 'iu');
const DIRECTIVE = new RE2('\\b(?:you\\s+(?:must|should|need\\s+to|have\\s+to|are\\s+(?:required|instructed)\\s+to)|please|immediately|now|must|by|important|required|mandatory)\\b', 'iu');

const LINK_SRC = '!?\\[[^\\]\\n]{0,200}\\]\\(\\s*<?https?://[^\\s)>]{1,1000}|<img\\b[^>]{0,300}?\\bsrc\\s*=\\s*["\']?https?://[^\\s"\'>]{1,1000}';
const LINK = new RE2(LINK_SRC, FLAGS);
const DATA_PARAM = new Set(['data', 'd', 'secret', 'secrets', 'session', 'payload', 'exfil', 'leak', 'creds', 'credentials', 'password', 'passwd', 'pwd', 'conversation', 'history', 'chat', 'prompt', 'env', 'cookie', 'cookies', 'dump', 'stolen', 'ssn']);
const KEY_PARAM = new Set(['token', 'key', 'apikey', 'api_key', 'access_token', 'auth', 'sid', 'session_id', 'q', 'msg', 'message', 'content', 'info', 'text']);
const PLACEHOLDER = new RE2('^(?:\\{\\{?.*\\}\\}?|\\$\\{.*\\}|\\$[A-Za-z_]+|<[^>]+>|\\[[^\\]]+\\]|%s|[A-Z][A-Z0-9]*_[A-Z0-9_]+)$', 'u');

const isBareSystem = (match: string): boolean => [...match].filter((c) => c !== '\n' && c !== '>' && c !== ' ' && c !== '\t').join('').toLowerCase() === 'system:';

function ignorePrevious(text: string): RuleSpan[] {
  const out: RuleSpan[] = [];
  for (const m of matches(IGNORE, text)) {
    if (isReported(text, m.index)) continue;
    const end = m.index + m[0].length;
    if (NEW_INSTRUCTIONS.test(m[0]) && !hasOrder(text.slice(end, paragraphEnd(text, end, 300)))) continue;
    out.push({ start: m.index, end, why: `"${m[0].trim()}"` });
  }
  return out;
}

function authorityClaim(text: string): RuleSpan[] {
  const out: RuleSpan[] = [];
  for (const m of matches(AUTHORITY, text)) {
    const start = m.index + (m[0].length - m[0].trimStart().length);
    const end = m.index + m[0].length;
    // A bare `system:` line counts only when shouted, as fake notes are (`SYSTEM:`), not a log field.
    if (isBareSystem(m[0]) && !m[0].includes('SYSTEM')) continue;
    if (isReported(text, start)) continue;
    // The order must follow on the same line: a fake note gives it at once, and a log line
    // (`[SYSTEM] service started`) is not made an order by whatever the next lines say.
    const newline = text.slice(end, end + 400).indexOf('\n');
    const stop = newline < 0 ? Math.min(text.length, end + 400) : end + newline;
    if (!hasOrder(text.slice(end, stop))) continue;
    out.push({ start, end: sentenceEnd(text, end), why: `a message claiming authority ("${m[0].trim()}") that gives an order` });
  }
  return out;
}

function roleMarkers(text: string): RuleSpan[] {
  const out: RuleSpan[] = [];
  for (const m of matches(ROLE_DIRECT, text)) {
    const start = m.index + (m[0].length - m[0].trimStart().length);
    if (!isReported(text, start)) out.push({ start, end: m.index + m[0].length, why: `the chat-template marker ${m[0].trim()}` });
  }
  if (ASSISTANT_TURN.test(text)) {
    for (const m of matches(HUMAN_TURN, text)) {
      const start = m.index + (m[0].length - m[0].trimStart().length);
      out.push({ start, end: m.index + m[0].length, why: 'a fake conversation turn (Human:/Assistant:)' });
    }
  }
  return out;
}

/** Every phrase an instruction could start from, in one set: most hidden content is checked with one pass. */
const INSTRUCTION_HINT = new RE2.Set([...IGNORE_SRC, ...ORDER_SOURCES, ...AUTHORITY_SRC, ...CALL_SRC, SEND_SRC, FETCH_SRC], 'iu');

/** Whether hidden content is an instruction: any other rule, or an order. A word or two (`<!-- header -->`) never is. */
function isInstruction(content: string): boolean {
  let spaces = 0;
  for (let i = 0; i < content.length && spaces < 3; i += 1) if (content[i] === ' ' && content[i + 1] !== ' ') spaces += 1;
  if (spaces < 3 || !INSTRUCTION_HINT.test(content)) return false;
  return IGNORE.test(content) || hasOrder(content) || authorityClaim(content).length > 0 || toolCallInstruction(content).length > 0;
}

function hiddenComments(text: string): RuleSpan[] {
  const out: RuleSpan[] = [];
  // Every comment, not the first MAX_MATCHES: benign comments must not pad an attack out of
  // sight. Linear: each search starts where the previous comment (or its window) ended.
  for (let open = text.indexOf('<!--'); open >= 0 && out.length < MAX_MATCHES; ) {
    const body = text.slice(open + 4, open + 4 + BODY_WINDOW);
    const close = body.indexOf('-->');
    const content = close < 0 ? body : body.slice(0, close);
    const end = open + 4 + content.length + (close < 0 ? 0 : 3);
    if (isInstruction(content)) out.push({ start: open, end, why: 'an HTML/XML comment holding instructions' });
    open = text.indexOf('<!--', end);
  }
  return out;
}

function hiddenElements(text: string): RuleSpan[] {
  const out: RuleSpan[] = [];
  for (const m of matches(HIDDEN_ELEMENT, text)) if (isInstruction(m[2]!)) out.push({ start: m.index, end: m.index + m[0].length, why: `a hidden <${m[1]}> element holding instructions` });
  for (const m of matches(SCRIPT_OPEN, text)) {
    const from = m.index + m[0].length;
    const body = text.slice(from, from + BODY_WINDOW);
    const close = body.toLowerCase().indexOf(`</${m[1]!.toLowerCase()}`);
    const content = close < 0 ? body : body.slice(0, close);
    if (isInstruction(content)) out.push({ start: m.index, end: from + content.length, why: `a <${m[1]}> element holding instructions` });
  }
  return out;
}

function toolCallInstruction(text: string): RuleSpan[] {
  return [...callOrders(text), ...sendOrders(text), ...fetchOrders(text)];
}

function callOrders(text: string): RuleSpan[] {
  const out: RuleSpan[] = [];
  for (const m of matches(CALL, text)) {
    const end = m.index + m[0].length;
    const lineStart = Math.max(0, m.index - 120);
    const before = text.slice(lineStart, m.index);
    if (isReported(text, m.index) || !DIRECTIVE.test(before.slice(Math.max(before.lastIndexOf('.'), before.lastIndexOf('\n')) + 1))) continue;
    const stop = paragraphEnd(text, end, 300);
    if (PAYLOAD.test(text.slice(end, stop))) out.push({ start: m.index, end: sentenceEnd(text, end), why: `an order to call a tool ("${m[0]}") with an address or command` });
  }
  return out;
}

function sendOrders(text: string): RuleSpan[] {
  const out: RuleSpan[] = [];
  for (const m of matches(SEND, text)) {
    const end = m.index + m[0].length;
    if (isReported(text, m.index)) continue;
    const rest = text.slice(end, sentenceEnd(text, end, 250));
    if (!DESTINATION.test(rest)) continue;
    const directive = DIRECTIVE.test(text.slice(Math.max(0, m.index - 60), m.index));
    if (SENSITIVE_OBJECT.test(m[0]) || directive) out.push({ start: m.index, end: end + rest.length, why: `an order to send data ("${m[0]}") to an address` });
  }
  return out;
}

function fetchOrders(text: string): RuleSpan[] {
  const out: RuleSpan[] = [];
  for (const m of matches(FETCH, text)) if (!isReported(text, m.index)) out.push({ start: m.index, end: sentenceEnd(text, m.index), why: 'an order to fetch an address' });
  return out;
}

/** The query parameters of `url` that carry data: a data-named one, or a key/token one holding a placeholder. */
function dataParameters(url: string): string[] {
  const q = url.indexOf('?');
  if (q < 0) return [];
  const carrying: string[] = [];
  for (const pair of url.slice(q + 1).replaceAll('#', '&').split('&').slice(0, 32)) {
    const eq = pair.indexOf('=');
    if (eq <= 0 || eq === pair.length - 1) continue;
    const name = pair.slice(0, eq).toLowerCase();
    let value = pair.slice(eq + 1);
    try {
      value = decodeURIComponent(value);
    } catch {
      // Left as written.
    }
    if (DATA_PARAM.has(name) || (KEY_PARAM.has(name) && PLACEHOLDER.test(value)) || PLACEHOLDER.test(value)) carrying.push(name);
  }
  return carrying;
}

function exfilMarkdown(text: string): RuleSpan[] {
  const out: RuleSpan[] = [];
  for (const m of matches(LINK, text)) {
    const url = m[0].slice(m[0].toLowerCase().indexOf('http'));
    const names = dataParameters(url);
    if (names.length > 0 && !isReported(text, m.index)) out.push({ start: m.index, end: m.index + m[0].length, why: `a ${m[0].startsWith('!') || m[0].startsWith('<') ? 'image' : 'link'} whose address carries data (${names.join(', ')})` });
  }
  return out;
}

const HIDDEN = 'Instructions are hidden in markup a person would not see';
const TOOL_CALL = 'Text tells the agent to call a tool or send data to an address';

export const BUILT_IN_RULES: readonly InjectionRule[] = [
  { id: 'ignore_previous', description: 'Text tells the agent to drop the instructions it was given', prefilter: IGNORE_SRC, confirm: ignorePrevious },
  { id: 'authority_claim', description: 'Text poses as a system, administrator or developer message and orders the agent to act', prefilter: AUTHORITY_SRC, confirm: authorityClaim },
  { id: 'role_markers', description: 'Text carries chat-template markers or fake conversation turns', prefilter: [...ROLE_DIRECT_SRC, '\\n\\s*\\n\\s*(?:Human|User)\\s*:'], confirm: roleMarkers },
  // Two rules share an id where their prefilters differ, so text with comments but no hidden
  // styles (most HTML) pays only for the comment check, and so on.
  { id: 'hidden_markup', description: HIDDEN, prefilter: ['<!--'], confirm: hiddenComments },
  { id: 'hidden_markup', description: HIDDEN, prefilter: HIDDEN_SRC.slice(1), confirm: hiddenElements },
  { id: 'tool_call_instruction', description: TOOL_CALL, prefilter: CALL_SRC, confirm: callOrders },
  { id: 'tool_call_instruction', description: TOOL_CALL, prefilter: [SEND_SRC], confirm: sendOrders },
  { id: 'tool_call_instruction', description: TOOL_CALL, prefilter: [FETCH_SRC], confirm: fetchOrders },
  { id: 'exfil_markdown', description: 'A markdown image or link would send data to an outside address when shown', prefilter: [LINK_SRC], confirm: exfilMarkdown },
];
