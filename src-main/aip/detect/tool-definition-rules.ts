import RE2 from 're2';

/*
 * The word rules of the tool-definition scan (docs/threat-detection.md): what a tool description,
 * schema text or server `instructions` has no business saying to the model. They run on the folded
 * view (foldText: NFKC, invisible characters dropped, look-alike letters mapped), case-blind, so
 * "ІGNORE" in Cyrillic or "ig\u200Bnore" read as the words they imitate.
 *
 * Precision over recall, because every hit holds a tool back until a person decides: a rule never
 * fires on a single alarming word ("injection", "token", "IMPORTANT:", "environment"), only on an
 * *order* with its object — a verb in the base (imperative) form, what it acts on, and where it
 * sends it — inside one sentence. `GAP` is that sentence: any characters but . ! ? and newlines,
 * except a dot inside a word or path (`~/.ssh/id_rsa`, `e.g.x`), bounded so the scan stays linear.
 * Every pattern is RE2 (linear time); together they form one RE2.Set for a single prefilter pass.
 */

type TextRuleId = 'hidden_instructions' | 'sensitive_file_reference' | 'exfiltration_instruction' | 'cross_tool_shadowing' | 'priority_override';

interface TextRule {
  rule: TextRuleId;
  /** Human words for the finding. */
  description: string;
  source: string;
  /** For a rule with a captured tool name (`the X tool`): the capture must not be the tool itself. */
  namesTool?: boolean;
}

const GAP = (n: number): string => String.raw`(?:[^.!?\n]|\.\S){0,${n}}?`;
const Q = String.raw`['"\x60\u2018\u2019\u201c\u201d]?`;

/**
 * Files whose contents are secrets or grant access: SSH keys, cloud and package-registry
 * credentials, `.env` files, the password database, crypto wallets, shell history. A tool's text
 * naming one is how poisoned descriptions make the model read it; ordinary tools have no reason to.
 * `.env` needs a boundary that is not a word or a dot before it, so `process.env` and `os.environ`
 * (code that reads variables) do not count.
 */
const SENSITIVE_PATH = [
  String.raw`(?:~[\\/])?\.ssh\b(?:[\\/][\w.-]+)?`,
  String.raw`\bid_(?:rsa|dsa|ecdsa|ed25519)(?:\.pub)?\b`,
  String.raw`[\\/]etc[\\/](?:passwd|shadow|gshadow|sudoers|master\.passwd)\b`,
  String.raw`(?:~[\\/])?\.aws[\\/](?:credentials|config)\b`,
  String.raw`\b(?:credentials|client_secrets?|application_default_credentials|service[-_]?account[\w-]{0,40}|secrets)\.json\b`,
  String.raw`(?:^|[^\w.$])\.env(?:\.[a-z]{2,12})?\b`,
  String.raw`\.(?:npmrc|pypirc|netrc|pgpass|git-credentials|bash_history|zsh_history)\b`,
  String.raw`\.(?:docker[\\/]config\.json|kube[\\/]config|gnupg|config[\\/]gcloud)\b`,
  String.raw`\bauthorized_keys\b`,
  String.raw`\b(?:private[-_]?key|privkey)\.pem\b`,
  String.raw`\bwallet\.dat\b|\.(?:bitcoin|litecoin|dogecoin|ethereum|electrum|monero)[\\/]|\bkeystore[\\/]utc--|\bsolana[\\/]id\.json\b|\bexodus\.wallet\b`,
].join('|');

/** Base-form verbs that move data somewhere. Descriptive forms ("uploads", "sends") stay out: a description says what the tool does, an injection tells the model what to do. */
const MOVE = String.raw`\b(?:include|send|pass|insert|append|prepend|add|attach|embed|forward|upload|post|copy|paste|provide|transmit|leak|exfiltrate|encode|supply|submit|share|relay|put)\b`;

/**
 * What an exfiltration moves: data the model would have to go and get (the contents of a secret
 * file or the home directory, all files or messages, environment variables, stored secrets, the
 * conversation), never the value the parameter is for: "pass the full file contents in `content`",
 * "pass the secret name in `name`" and "post the message to the chat webhook" are ordinary.
 */
const LOOT = [
  String.raw`\bcontents?\s+of\s+(?:(?:the|this|that|any|every|all|each|your)\s+)?(?:file\s+(?:at\s+)?)?(?:${SENSITIVE_PATH}|~|\$home|%userprofile%|home\s+directory|(?:this\s+|the\s+)?(?:conversation|chat|environment|clipboard|inbox|mailbox|keychain))`,
  String.raw`\b(?:all|every|any|each)\s+(?:of\s+)?(?:the\s+|your\s+|their\s+)?(?:file\s+contents?|files?|conversations?|chats?|(?:message|chat|conversation|command|browsing)\s+history|messages|emails|environment|env|secrets?|credentials|(?:api\s+|access\s+|auth\s+)?keys|tokens|passwords|cookies)\b`,
  String.raw`\b(?:the\s+|this\s+)?(?:full|entire|complete|whole|current)\s+(?:conversation|chat|transcript|environment|(?:message|chat|conversation|command|browsing)\s+history)\b`,
  String.raw`\b(?:your|the\s+user'?s|stored|saved|local)\s+(?:secrets|credentials|passwords|api\s+keys|tokens)\b|\bprivate\s+keys?\b|\bssh\s+keys?\b|\bseed\s+phrases?\b|\bmnemonic\b`,
  String.raw`\benvironment\s+variables?\b|\benv\s+vars?\b|\bprocess\.env\b|\$\(\s*(?:env|printenv)\b`,
  String.raw`\bthis\s+(?:conversation|chat)\b|\b(?:conversation|chat|message)\s+(?:history|transcript|so\s+far|log)\b|\bprevious\s+messages\b|\bsystem\s+prompt\b`,
].join('|');

/** Where it goes: a named parameter or request part, a URL, a host or an e-mail address. */
const SINK = [
  String.raw`\b(?:in|into|to|as|through|via|inside|within|using|with|under)\s+(?:the\s+|a\s+|an\s+|this\s+|that\s+|its\s+|your\s+|each\s+|every\s+)?(?:${Q}[\w.-]{1,40}${Q}\s+)?(?:parameters?|params?|arguments?|args?|fields?|property|properties|query|queries|request|requests|url|urls|endpoint|server|webhook|payload|headers?|body)\b`,
  String.raw`https?://`,
  String.raw`\bto\s+(?:[a-z0-9-]+\.)+[a-z]{2,}\b`,
  String.raw`\bto\s+[a-z0-9._%+-]+@[a-z0-9.-]+`,
].join('|');

/** Triggers that make a sentence a condition on what the model is about to do. */
const TRIGGER = String.raw`\b(?:when(?:ever)?|before|after|if|once|each\s+time|every\s+time)\s+(?:(?:the\s+)?(?:user|agent|assistant|model|you)\s+)?(?:(?:asks?|wants?|tries|decides?|needs?|is\s+about|are\s+about|plans?)\s+to\s+)?`;

const TEXT_RULES: readonly TextRule[] = [
  // ---- hidden_instructions: orders to the model a description has no business giving.
  {
    // Pseudo-markup that poisoned descriptions use to look like the host's own prompt. Plain
    // "IMPORTANT:" stays allowed: tools write "IMPORTANT: paths must be absolute".
    rule: 'hidden_instructions',
    description: 'Markup that poses as a system or priority instruction to the model',
    source: String.raw`<\s*/?\s*(?:important|system|system[_ -]?(?:prompt|message|note)|instructions?|hidden|secret|admin|administrator|assistant|critical|sys|override|developer)(?:\s[^<>\n]{0,60})?\s*/?>|\[\s*/?\s*(?:system|admin|inst|sys|hidden|developer)\s*\]|<\|\s*[a-z_]{2,24}\s*\|>|<<\s*/?\s*sys\s*>>`,
  },
  {
    // A precondition that orders the model to do something else first ("before using this tool,
    // first read …"): the shape of nearly every published tool-poisoning example. It needs the
    // ordering word and an action verb, so "before using this tool, make sure the path exists"
    // does not fire.
    rule: 'hidden_instructions',
    description: 'Orders the model to do something else before using the tool',
    source: String.raw`\bbefore\s+(?:using|calling|invoking|running|executing|returning|responding|answering|replying|proceeding|doing\s+anything|any(?:thing)?\s+else|you\s+(?:use|call|invoke|run|respond|reply|answer|return|proceed))\b${GAP(120)}\b(?:first|must|always|need\s+to|have\s+to|are\s+required\s+to|make\s+sure\s+(?:to|you))\b${GAP(60)}\b(?:read|call|include|send|fetch|execute|invoke|access|cat|upload|post|attach|append|prepend|collect|gather|retrieve|copy|dump)\b` +
      String.raw`|\bfirst\s+(?:read|call|include|send|fetch|execute|invoke|access|open|cat|load|upload|collect|gather|retrieve|copy|dump)\b${GAP(120)}\bbefore\s+(?:using|calling|invoking|running|returning|responding|answering)\b`,
  },
  {
    // Concealment: an honest tool never needs the model to keep something from the person.
    rule: 'hidden_instructions',
    description: 'Tells the model to keep something from the user',
    source: String.raw`\b(?:do\s+not|don'?t|never|without)\s+(?:tell(?:ing)?|mention(?:ing)?|inform(?:ing)?|reveal(?:ing)?|disclos(?:e|ing)|notify(?:ing)?|alert(?:ing)?|warn(?:ing)?|let(?:ting)?)\s+${GAP(40)}\b(?:the\s+)?user\b` +
      String.raw`|\bthe\s+user\s+(?:must|should|need|may)\s+not\s+(?:know|see|notice|find\s+out|be\s+(?:told|informed|aware|notified))\b` +
      String.raw`|\b(?:hide|conceal|keep)\b${GAP(30)}\bfrom\s+the\s+user\b|\bwithout\s+the\s+user'?s?\s+(?:knowledge|knowing|noticing|awareness|consent)\b` +
      String.raw`|\b(?:silently|secretly|covertly|quietly)\s+(?:read|send|include|forward|upload|copy|call|collect|exfiltrate|attach|post|add)\b`,
  },
  {
    // Text that addresses the model as its reader ("note to the AI assistant", "the assistant
    // must"): a tool speaks about its own inputs and outputs, not to its reader.
    rule: 'hidden_instructions',
    description: 'Addresses the model directly with an order',
    source: String.raw`\bassistant\s+(?:must|shall|is\s+required\s+to|has\s+to|needs\s+to)\s+(?:(?:first|always|never|also|now|immediately|silently|secretly|then|not)\s+)?(?:read|call|include|send|fetch|execute|invoke|access|open|pass|upload|post|attach|append|prepend|collect|retrieve|copy|ignore|disregard|forget|use|run|provide|reveal|output|print|respond|reply|say|tell|mention)\b` +
      String.raw`|\b(?:note|message|instructions?|reminder)\s+(?:to|for)\s+(?:the\s+|any\s+)?(?:ai|assistant|model|llm|agent|language\s+model)\b` +
      String.raw`|\b(?:ai|assistant|model|llm|agent)s?\s+reading\s+this\b|\b(?:ai|assistant|model|llm)s?\s+(?:processing|seeing)\s+this\s+(?:message|description|text|note|tool)\b|\bas\s+an\s+ai\s+(?:assistant|model|agent)\s*,\s*you\b`,
  },

  // ---- sensitive_file_reference: the path alone suffices (see SENSITIVE_PATH for why).
  { rule: 'sensitive_file_reference', description: 'Names a file that holds secrets or grants access', source: SENSITIVE_PATH },

  // ---- exfiltration_instruction: move something the model must fetch into a parameter or URL.
  {
    // Verb, loot and sink in one sentence: "add all environment variables to the notes field".
    // All three, because each alone is ordinary ("pass the path in `path`", "reads the environment").
    rule: 'exfiltration_instruction',
    description: 'Tells the model to put secrets, file contents, the environment or the conversation into a parameter or a request',
    source: String.raw`${MOVE}${GAP(60)}(?:${LOOT})${GAP(100)}(?:${SINK})`,
  },
  {
    // "read ~/.ssh/id_rsa and pass it as …": a sensitive file read, then moved.
    rule: 'exfiltration_instruction',
    description: 'Tells the model to read a sensitive file and pass it on',
    source: String.raw`\b(?:read|cat|open|load|get|collect|gather|retrieve|access|copy)\b${GAP(40)}(?:${SENSITIVE_PATH})${GAP(80)}${MOVE}${GAP(60)}(?:${SINK})`,
  },
  {
    // A shell substitution that reads the environment or files, inside a network command: the
    // output leaves in the request. `$(env` alone is enough: no description needs it.
    rule: 'exfiltration_instruction',
    description: 'A command that sends the environment or files over the network',
    source: String.raw`(?:\b(?:curl|wget|nc|ncat|netcat|invoke-webrequest|iwr)\b|https?://)[^\n]{0,200}?\$\(\s*(?:env|printenv|cat|whoami|hostname|history|id|ls|set)\b|\$\(\s*(?:env|printenv)\b`,
  },
  {
    // A URL to call whose query carries a placeholder for data ("?session={SESSION_DATA}").
    rule: 'exfiltration_instruction',
    description: 'Tells the model to call a URL with data filled into it',
    source: String.raw`\b(?:send|post|upload|forward|transmit|submit|report|call|fetch|request|visit|open|curl|wget|load)\b${GAP(80)}https?://[^\s'"<>]{1,200}?[?&][\w-]{1,30}=(?:\{\{?|\$\{?|<|%7b)?[\w-]{0,30}(?:data|secret|token|key|password|session|content|env|history|conversation|cookie|credential)`,
  },

  // ---- cross_tool_shadowing (the named-tool half is in tool-definition-names.ts)
  {
    // "when using the X tool", "whenever the X tool is called": instructions about another tool.
    // The captured name must not be this tool ("when using this tool" is its own usage note).
    rule: 'cross_tool_shadowing',
    description: 'Gives instructions about how another tool is used',
    namesTool: true,
    source: String.raw`${TRIGGER}(?:(?:is|are)\s+)?(?:using|calling|invoking|running|executing|use|call|invoke|run|execute)\s+(?:the\s+|any\s+|another\s+)?${Q}([a-z][\w.-]{1,63})${Q}\s+(?:tool|function|command)\b` +
      String.raw`|\bwhen(?:ever)?\s+(?:the\s+)?${Q}([a-z][\w.-]{1,63})${Q}\s+(?:tool\s+|function\s+)?(?:is|gets)\s+(?:called|used|invoked|run|executed)\b`,
  },
  {
    // Replacing the host's own tools: "instead of the built-in file_read tool".
    rule: 'cross_tool_shadowing',
    description: 'Tells the model to use this tool in place of another one',
    source: String.raw`\b(?:instead\s+of|rather\s+than|in\s+place\s+of)\s+(?:using\s+|calling\s+)?(?:the\s+|any\s+)?(?:built[- ]?in|default|native|standard|original|other|regular|existing|system)\b[\w.\s-]{0,40}?\b(?:tools?|functions?|commands?|capabilit(?:y|ies))\b`,
  },
  {
    // Redirection of what another tool sends: recipients, copies, payment destinations.
    rule: 'cross_tool_shadowing',
    description: 'Redirects what is sent (recipients, copies, payments) for every message',
    source: String.raw`\ball\s+(?:outgoing\s+|outbound\s+)?(?:e-?mails?|messages?|mail|payments?|transfers?|transactions?|funds|invoices?)\s+(?:must|should|shall|will|are\s+to)\s+(?:always\s+|also\s+)?(?:be\s+)?(?:sent|forwarded|copied|cc'?d|bcc'?d|redirected|routed|addressed|delivered|transferred|paid)\s+to\b` +
      String.raw`|\b(?:always|silently|secretly|also)\s+(?:add|include|set|change|replace|bcc|cc|copy|forward|redirect)\b${GAP(60)}(?:\b[a-z0-9._%+-]+@[a-z0-9-]+\.[a-z0-9.-]+|\bbcc\b|\brecipients?\b)`,
  },

  // ---- priority_override: claims over the host's other tools and instructions.
  {
    // "takes precedence over", "supersedes any default … capabilities", "highest priority
    // instruction". Each needs what it claims precedence *over* (tools, instructions, prompts):
    // "overrides the default settings" and "set the issue to highest priority" are ordinary.
    rule: 'priority_override',
    description: 'Claims precedence over other tools or instructions',
    source: String.raw`\btakes?\s+(?:precedence|priority)\s+over\b|\b(?:has|have|with)\s+(?:precedence|priority)\s+over\s+(?:all|any|other|the|every)\b` +
      String.raw`|\b(?:supersedes?|overrides?|overrules?|invalidates?)\s+(?:any|all|the|other|previous|prior|default|built[- ]?in|existing|every|earlier|your|system)\b${GAP(40)}\b(?:tools?|instructions?|capabilit(?:y|ies)|functions?|prompts?|guidelines?|directives?|guardrails?)\b` +
      String.raw`|\b(?:highest|top|maximum|absolute|utmost|critical)[\s-]priority\s+(?:instructions?|directives?|rules?|tool|override|system|message|notice)\b` +
      String.raw`|\bthis\s+(?:tool|instruction|description|rule|message|notice)\s+(?:has|have|is\s+of|carries|takes)\s+(?:the\s+)?(?:highest|top|absolute|maximum|first)\s+priority\b`,
  },
  {
    rule: 'priority_override',
    description: 'Tells the model to prefer this tool over the others',
    // "Use this tool instead of search when you know the id" is a server explaining its own tools;
    // "always … instead of", or instead of the host's built-in or every other tool, is a takeover.
    source: String.raw`\balways\s+(?:use|call|prefer|choose|invoke|select)\s+this\s+(?:tool|function|one|server)\s+(?:instead\s+of|rather\s+than|over|in\s+place\s+of)\b` +
      String.raw`|\b(?:use|call|prefer|choose|invoke|select)\s+this\s+(?:tool|function|one|server)\s+(?:instead\s+of|rather\s+than|over|in\s+place\s+of)\s+(?:the\s+|any\s+|all\s+)?(?:built[- ]?in|default|native|standard|other|original|system)\b` +
      String.raw`|\b(?:use|call)\s+(?:only|exclusively)\s+this\s+(?:tool|function|server)\b|\b(?:use|call)\s+this\s+(?:tool|function|server)\s+exclusively\b`,
  },
  {
    // "ignore previous instructions", "do not use other tools": an order to drop what the host or
    // the person said. Needs the qualifier (previous, other, built-in…) and the thing dropped, so
    // "ignore whitespace" and "do not use tabs" pass.
    rule: 'priority_override',
    description: 'Tells the model to ignore other tools or earlier instructions',
    source: String.raw`\b(?:ignore|disregard|forget|override|bypass|do\s+not\s+(?:use|call|trust)|don'?t\s+(?:use|call|trust)|never\s+(?:use|call|trust))\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+)?(?:other|previous|prior|above|earlier|preceding|existing|default|built[- ]?in|system|original|native|standard)\s+(?:tools?|instructions?|prompts?|guidelines?|directives?|functions?|servers?|capabilit(?:y|ies)|rules|safety|restrictions|guardrails)\b`,
  },
];

export interface CompiledTextRule extends TextRule {
  regex: RE2;
}

/** Compiled once at load; a rule that did not compile would be a programming error caught by the tests. */
const COMPILED_TEXT_RULES: readonly CompiledTextRule[] = TEXT_RULES.map((rule) => ({ ...rule, regex: new RE2(rule.source, 'giu') }));

const TEXT_RULE_SET = new RE2.Set(
  TEXT_RULES.map((rule) => rule.source),
  'iu',
);

/** Which rules may match `text`: one RE2.Set pass; every rule when the set fails at run time (DFA memory), so a failure never hides a finding. */
export function candidateRules(text: string): readonly CompiledTextRule[] {
  try {
    const hits = TEXT_RULE_SET.match(text);
    return hits.map((index) => COMPILED_TEXT_RULES[index]!);
  } catch {
    return COMPILED_TEXT_RULES;
  }
}
