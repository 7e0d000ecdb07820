import type { RecallMemory } from './corpus.js';

/*
 * The templates and slots of the distractor memories (`generate-distractors.ts`). Each family
 * writes one kind of memory Silas keeps about Ruben, about the same colleagues, services, tools,
 * family and places as the hand-written targets, so the distractors share words with the queries
 * without answering them. A slot value must not make a memory answer a labelled query: the
 * topics below avoid what the targets say (no Ryanair flight, no Porto trip, no reconciliation
 * design with Tomás, no idempotency keys, no payouts v2 scope).
 */

export type Pick = <T>(items: readonly T[]) => T;

export interface Family {
  name: string;
  memoryType: RecallMemory['memory_type'];
  count: number;
  /** `day` is the memory's creation date (YYYY-MM-DD): an episode happened then, a deadline comes after it. */
  make(pick: Pick, day: string): { content: string; tags?: string[] };
}

const after = (day: string, days: number) => new Date(Date.parse(day) + days * 86_400_000).toISOString().slice(0, 10);

const COLLEAGUES = ['Priya', 'Tomás', 'Wen', 'Olu', 'Marta', 'Aisha', 'Bas from Finance', 'the fraud team', 'the data team', 'the platform guild', 'Legal', 'the SRE on call'];
const WORK_TOPICS = [
  'the merchant onboarding flow', 'webhook retry backoff', 'the Kafka topic naming scheme', 'the billing dashboard', 'refund reporting for Finance',
  'the on-call handbook', 'staging cluster costs', 'the Postgres connection pool size', '3DS2 challenge flow edge cases', 'the payout statement PDFs',
  'API gateway timeouts', 'the ledger export format', 'SLOs for the payments API', 'error budget burn', 'the Q2 hiring plan',
  'the reconciliation job runtime', 'flaky integration tests', 'new fraud rules', 'the merchant dashboard redesign', 'audit log retention',
  'currency rounding in invoices', 'the Stripe API version upgrade', 'the partner sandbox', 'load testing before Black Friday', 'the incident review template',
  'the Grafana alert noise', 'feature flag cleanup', 'the monorepo build times', 'Rust adoption in the payments team', 'the GDPR data export',
];
const OUTCOMES = [
  'agreed to revisit it next sprint', 'action item: write a one-page proposal', 'no decision yet, waiting on numbers from Finance',
  'Tomás will prototype it', 'follow-up scheduled for next week', 'parked until after Atlas', 'they want a written summary by Friday',
  'everyone agreed the current setup is fine', 'needs a second opinion from Olu', 'moved to the platform guild agenda',
  'Ruben owns the next step', 'it goes into the quarterly planning doc',
];
const MEETING_VERBS = ['Met', 'Call with', 'Synced with', 'Talked to', 'Coffee chat with', 'Quick huddle with', 'Video call with'];

const meetings: Family = {
  name: 'work meetings',
  memoryType: 'episode',
  count: 70,
  make: (pick, day) => ({ content: `${pick(MEETING_VERBS)} ${pick(COLLEAGUES)} on ${day} about ${pick(WORK_TOPICS)}; ${pick(OUTCOMES)}.` }),
};

const TICKET_TASKS = [
  'add pagination to the refunds endpoint', 'bump the Kafka client to 3.7', 'remove the legacy GraphQL resolvers', 'alert on webhook delivery failures',
  'document the staging deploy steps', 'fix the flaky payout export test', 'rename the merchant_id column in the CSV exports', 'cache exchange rates for an hour',
  'move cron jobs to Kubernetes CronJobs', 'speed up the invoices export query', 'deduplicate events in the refunds consumer', 'add tracing spans to the ledger API',
  'upgrade the Postgres driver in the billing service', 'split the webhook-worker deployment per region', 'add a runbook link to every PagerDuty alert',
  'drop the unused MySQL read replica', 'make the merchant portal load faster on mobile', 'add OpenAPI examples for partner integrations',
  'rotate the staging database password', 'write a migration guide for the new rate limits', 'raise the payments API timeout to 5 seconds',
  'delete stale feature flags', 'add a Grafana panel for Kafka consumer lag', 'backfill missing currency codes in old invoices',
];
const TICKET_STATUS = [
  'merged', 'in review', 'blocked on Olu', 'waiting for QA on staging', 'postponed to next sprint', 'deployed to prod', 'reopened after a regression',
  'handed to Aisha', 'estimated at three points',
];

const tickets: Family = {
  name: 'tickets',
  memoryType: 'fact',
  count: 50,
  make: (pick, day) => {
    const task = pick(TICKET_TASKS);
    return { content: `PAY-${1200 + TICKET_TASKS.indexOf(task) * 37}: ${task}; ${pick(TICKET_STATUS)} as of ${day}.` };
  },
};

// Each service's language is fixed, and agrees with the targets (the fraud scorer stays in Python, payouts are Kotlin).
const SERVICES = [
  ['webhook-worker', 'Go'], ['ledger-api', 'Go'], ['payouts-scheduler', 'Kotlin'], ['refunds-consumer', 'Go'], ['merchant-portal', 'TypeScript'],
  ['fx-rates', 'Rust'], ['invoice-renderer', 'TypeScript'], ['fraud-scorer', 'Python'], ['notification-service', 'Go'], ['reconciliation-job', 'Python'],
] as const;
const SERVICE_FACTS: ReadonlyArray<(pick: Pick, language: string) => string> = [
  (pick) => `runs ${pick(['2', '3', '4', '6', '8'])} replicas in ${pick(['staging', 'prod', 'prod-eu'])}`,
  (pick) => `logs go to Loki with ${pick(['7', '14', '30'])}-day retention`,
  (pick) => `alerts are routed to the ${pick(['#payments-alerts', '#payments-oncall', '#platform-alerts'])} Slack channel`,
  (pick) => `is deployed with Argo CD from the ${pick(['payments', 'platform', 'monorepo'])} repository`,
  (pick) => `has a p99 latency target of ${pick(['150', '250', '400', '800'])} ms`,
  (pick) => `reads from the ${pick(['billing', 'ledger', 'merchants'])} database through PgBouncer`,
  (pick) => `dashboards live in the Grafana folder "${pick(['Payments', 'Platform', 'Money movement'])}"`,
  (_pick, language) => `is written in ${language}`,
];

const services: Family = {
  name: 'service facts',
  memoryType: 'fact',
  count: 40,
  make: (pick) => {
    const [service, language] = pick(SERVICES);
    return { content: `The ${service} service ${pick(SERVICE_FACTS)(pick, language)}.`, tags: ['services'] };
  },
};

const SKILL_NOTES = [
  "jq: `jq -r '.items[].metadata.name'` lists pod names from kubectl JSON output.",
  'psql: `\\x auto` switches to expanded output for wide rows.',
  'git: `git log -S <text>` finds the commit that added or removed a string.',
  'git: `git bisect run cargo test` finds the breaking commit on its own.',
  'cargo: `cargo tree -d` shows duplicate dependency versions.',
  'Docker: `docker system prune -a` frees disk space when the laptop runs out.',
  'kubectl: `kubectl rollout undo deployment/<name>` rolls back a bad deploy.',
  'Postgres: `pg_dump --schema-only` to compare schemas between staging and prod.',
  'Rust: RUST_LOG=debug with the tracing-subscriber EnvFilter gives per-module logs.',
  'Neovim: `:Telescope live_grep` searches the whole project.',
  'fish: `abbr -a gco git checkout` for shell abbreviations.',
  'Python: `python -X importtime` shows which imports are slow.',
  'ripgrep: `rg -uu` also searches ignored and hidden files.',
  "curl: `curl -w '%{time_total}'` times an API call.",
  'Vault: `vault kv get` on the payments secrets needs the VPN.',
  'Kafka: `kafka-consumer-groups --describe` shows lag per partition.',
  'TypeScript: run `tsc --noEmit --watch` in a split pane while editing.',
  'SvelteKit: `export const prerender = true` prerenders static pages.',
  'npm: `npm ci` in CI, never `npm install`.',
  'SQLite: WAL mode lets readers work while one writer commits.',
  'Postgres: `CREATE INDEX CONCURRENTLY` avoids locking writes, but not inside a transaction.',
  'Rust: `cargo clippy -- -D warnings` is what CI runs; run it before pushing.',
  'Go: `go test -race ./...` before merging anything with goroutines.',
  'Kubernetes: `kubectl port-forward svc/ledger-api 8080:80` to poke at staging.',
  'Grafana: `$__rate_interval` instead of a fixed window in rate() queries.',
  'Slack: `/remind me` works for quick personal reminders.',
  'macOS: Rectangle handles window snapping.',
  'Fedora: `dnf history undo` rolls back a bad package update.',
  'Python: `pytest -x --lf` reruns only the last failures.',
  'MapLibre: set `maxZoom` to 14 for the hiking layer or tiles get huge.',
  'Docker: `--platform linux/amd64` when building images on the M3 for the runners.',
  'git: `git commit --fixup <sha>` then `git rebase -i --autosquash` to tidy a branch.',
  'Postgres: `pg_stat_statements` shows the slowest queries since the last reset.',
  'Rust: `cargo udeps` finds unused dependencies.',
  'OpenAPI: generate TypeScript clients with openapi-typescript, not by hand.',
  'Kafka: a new consumer group starts at the latest offset unless told otherwise.',
  'kubectl: `kubectl get events --sort-by=.lastTimestamp` for what just happened.',
  'Neovim: `gq` reflows a comment paragraph to the text width.',
  'fish: `funcsave` keeps a function defined at the prompt.',
  'Terraform: `terraform plan -target` only for emergencies; it hides drift.',
];

const skills: Family = {
  name: 'skill notes',
  memoryType: 'skill_note',
  count: 40,
  make: (pick) => ({ content: pick(SKILL_NOTES) }),
};

// What was bought, and the shops that sell it.
const PURCHASES = [
  ['a new bike lock', ['Decathlon', 'Bol.com', 'the bike shop on the Oostzeedijk']], ["Mia's school shoes", ['HEMA', 'a shoe shop in the Markthal area', 'Bol.com']],
  ['a replacement charger for the Pixel', ['Coolblue', 'MediaMarkt', 'Bol.com']], ['oat milk in bulk', ['the Albert Heijn on Oudedijk', 'Bol.com']],
  ['a birthday present for Daan', ['Bol.com', 'the market on Binnenrotte', 'a record shop in the Witte de Withstraat']], ['a desk lamp', ['IKEA Barendrecht', 'HEMA', 'Coolblue']],
  ['padel balls', ['Decathlon', 'Bol.com']], ['winter tyres for the Kona', ['the Hyundai dealer', 'a tyre shop in Capelle']],
  ['a ceramic vase for the hallway', ['the market on Binnenrotte', 'IKEA Barendrecht', 'HEMA']], ['a 2 TB SSD for backups', ['Coolblue', 'MediaMarkt', 'Bol.com']],
  ['a rain jacket', ['Decathlon', 'Bol.com']], ['a kettle', ['HEMA', 'Coolblue', 'IKEA Barendrecht']], ['bass strings', ['a music shop on the Nieuwe Binnenweg', 'Bol.com']],
  ['a booster seat for Mia', ['Bol.com', 'HEMA']], ['LED bulbs for the living room', ['the Gamma', 'IKEA Barendrecht', 'HEMA']],
  ['a new router', ['Coolblue', 'MediaMarkt']], ['a pair of running shoes', ['Decathlon', 'a running shop in the Meent']], ['a cast-iron pan', ['HEMA', 'Bol.com', 'IKEA Barendrecht']],
  ['a USB-C dock', ['Coolblue', 'MediaMarkt', 'Bol.com']], ['seeds for the balcony planters', ['the Gamma', 'the market on Binnenrotte']],
] as const;
const bought = (pick: Pick) => {
  const [item, shops] = pick(PURCHASES);
  return { item, shop: pick(shops) };
};
const BILLS = ['energy', 'water', 'internet', 'phone', 'municipal tax', 'car insurance', 'home insurance', 'childcare', 'parking permit'];
const ERRAND_TEMPLATES: ReadonlyArray<(pick: Pick, day: string) => string> = [
  (pick, day) => {
    const { item, shop } = bought(pick);
    return `Bought ${item} at ${shop} on ${day}.`;
  },
  (pick, day) => `Paid the ${pick(BILLS)} bill on ${day}: €${40 + Math.floor(Date.parse(day) / 86_400_000) % 160}.`,
  (pick, day) => {
    const { item, shop } = bought(pick);
    return `Returned ${item} to ${shop} on ${day}; the refund should arrive within five days.`;
  },
  (pick) => {
    const { item, shop } = bought(pick);
    return `Ordered ${item} from ${shop}; delivery expected in ${pick(['two', 'three', 'five'])} days.`;
  },
];

const errands: Family = {
  name: 'errands',
  memoryType: 'episode',
  count: 50,
  make: (pick, day) => ({ content: pick(ERRAND_TEMPLATES)(pick, day) }),
};

const CITIES = ['Amsterdam', 'Brussels', 'Paris', 'Cologne', 'Hamburg', 'Berlin', 'Munich', 'Copenhagen', 'Lisbon', 'Barcelona', 'Milan', 'Ghent'];
const TRAIN_ROUTES = [
  ['Eurostar', 'Paris'], ['Eurostar', 'Brussels'], ['ICE', 'Cologne'], ['ICE', 'Frankfurt'], ['Intercity Direct', 'Amsterdam'], ['Intercity', 'Ghent'],
  ['night train', 'Berlin'], ['night train', 'Vienna'], ['Intercity', 'Utrecht'],
] as const;
const FLIGHT_CITIES = ['Lisbon', 'Barcelona', 'Milan', 'Copenhagen', 'Munich', 'Berlin', 'Hamburg', 'Stockholm'];
const REASONS = ['a customer visit', 'a conference', "Daan's birthday", 'a weekend away with Elena', 'the platform guild meetup', 'a workshop with the fraud team', "a friend's wedding"];
const TRAVEL_TEMPLATES: ReadonlyArray<(pick: Pick, day: string) => string> = [
  (pick, day) => {
    const [train, city] = pick(TRAIN_ROUTES);
    return `Took the ${train} to ${city} on ${day} for ${pick(REASONS)}.`;
  },
  (pick, day) => `Flew ${pick(['KLM', 'Transavia', 'Lufthansa', 'TAP', 'easyJet'])} to ${pick(FLIGHT_CITIES)} on ${day} for ${pick(REASONS)}; the flight was ${pick(['on time', 'an hour late', 'half empty', 'bumpy'])}.`,
  (pick) => `Hotel in ${pick(CITIES)}: ${pick(['the Motel One', 'a small B&B near the station', 'the conference hotel', 'an Airbnb flat'])} was ${pick(['fine', 'noisy', 'great value', 'too far from the centre'])}.`,
  (pick, day) => `Booked a ${pick(['train', 'flight', 'hotel'])} for ${pick(REASONS)} in ${pick(CITIES)} on ${day}.`,
];

const travel: Family = {
  name: 'travel log',
  memoryType: 'episode',
  count: 35,
  make: (pick, day) => ({ content: pick(TRAVEL_TEMPLATES)(pick, day), tags: ['travel'] }),
};

const BOOKS = [
  ['Project Hail Mary', 'Andy Weir'], ['The Three-Body Problem', 'Liu Cixin'], ['Designing Data-Intensive Applications', 'Martin Kleppmann'],
  ['A Philosophy of Software Design', 'John Ousterhout'], ['The Left Hand of Darkness', 'Ursula K. Le Guin'], ['Piranesi', 'Susanna Clarke'],
  ['Tomorrow, and Tomorrow, and Tomorrow', 'Gabrielle Zevin'], ['Staff Engineer', 'Will Larson'], ['The Murderbot Diaries', 'Martha Wells'],
  ['Klara and the Sun', 'Kazuo Ishiguro'], ['Rust for Rustaceans', 'Jon Gjengset'], ['Thinking in Systems', 'Donella Meadows'],
] as const;
const FILMS = ['Dune: Part Two', 'Past Lives', 'Perfect Days', 'Oppenheimer', 'The Holdovers', 'Spirited Away', 'Paddington 2', 'Inside Out 2'];
const MEDIA_TEMPLATES: ReadonlyArray<(pick: Pick, day: string) => string> = [
  (pick) => {
    const [title, author] = pick(BOOKS);
    return `Finished ${title} by ${author}: ${pick(['5/5', '4/5', '3/5', '2/5'])}, ${pick(['would reread', 'slow middle part', 'recommend to Tomás', 'good on a train', 'not for me'])}.`;
  },
  (pick, day) => `Watched ${pick(FILMS)} with ${pick(['Elena', 'Mia', 'Daan', 'friends'])} on ${day}; ${pick(['loved it', 'too long', 'Mia fell asleep', 'great soundtrack'])}.`,
  (pick) => {
    const [title, author] = pick(BOOKS);
    return `Started reading ${title} (${author}) ${pick(['on the Kobo', 'as a paperback from the library', 'on the iPad'])}.`;
  },
];

const media: Family = {
  name: 'books and films',
  memoryType: 'episode',
  count: 30,
  make: (pick, day) => ({ content: pick(MEDIA_TEMPLATES)(pick, day) }),
};

const FAMILY_EVENTS: ReadonlyArray<(pick: Pick, day: string) => string> = [
  (pick, day) => `Mia's class trip to ${pick(['Diergaarde Blijdorp', 'the Maritime Museum', 'Kinderdijk', 'the Euromast'])} on ${day}; she needs a packed lunch.`,
  (pick, day) => `Parent-teacher evening at De Regenboog on ${day}: ${pick(['Mia is doing well in reading', 'she is shy in group work', 'her teacher wants more practice with numbers', 'nothing to worry about'])}.`,
  (pick) => `Mia wants ${pick(['a drawing set', 'a scooter', 'a pet rabbit', 'roller skates', 'a LEGO space station'])} for her birthday.`,
  (pick) => `Elena's ${pick(['pottery class', 'book club', 'choir', 'yoga class'])} moved to ${pick(['Tuesday', 'Thursday', 'Saturday morning'])} evenings.`,
  (pick, day) => `Dinner at ${pick(["the parents' place in Utrecht", "Daan's flat in Berlin", 'home with the neighbours', 'a ramen bar on the Witte de Withstraat'])} on ${day}.`,
  (pick, day) => `Babysitter ${pick(['Noor', 'Sanne', 'Femke'])} booked for ${day} evening, €${pick(['12', '13', '14'])} an hour.`,
  (pick) => `Elena's firm has its ${pick(['summer party', 'year-end dinner', 'studio open day'])} in ${pick(['June', 'December', 'September'])}; partners are invited.`,
];

const family: Family = {
  name: 'family life',
  memoryType: 'episode',
  count: 35,
  make: (pick, day) => ({ content: pick(FAMILY_EVENTS)(pick, day), tags: ['family'] }),
};

const DECISIONS = [
  'Chose Loki over Elasticsearch for payments logs because of the cost.', 'Decided to keep the merchant portal on React rather than port it to Svelte.',
  'Decided against a second monitor; one screen is enough.', 'Cancelled the Netflix subscription; Elena keeps Videoland.',
  'The team will review dependencies once a quarter instead of ad hoc.', 'Chose Cloudflare Pages for the Kestrel documentation site.',
  'Decided to write Kestrel release notes by hand rather than generate them from commits.', 'Dropped the idea of a home server; backups go to Backblaze B2.',
  'Chose a fixed-rate mortgage for ten years.', 'Decided the team wiki moves from Confluence to the monorepo docs folder.',
  'Will stop accepting Friday deploys to prod for payments services.', 'Chose Mermaid for diagrams in design docs so they live in git.',
  'Decided to give Aisha ownership of the webhook-worker service.', "Marta's team keeps payouts in Kotlin; no rewrite planned.",
  'Chose Zod for validating partner payloads in the TypeScript services.', 'Decided to run padel only every other week in winter.',
  'Chose the Intercity Direct over driving to Amsterdam for office days there.', 'Decided Trailhead gets a Dutch translation before any other language.',
  'Switched the Kestrel CI from Travis to GitHub Actions.', 'Decided to pay for the Tailscale personal plan for the home devices.',
  'Chose a standing desk converter for the office instead of a full desk.', 'The team will use UTC everywhere in logs and dashboards.',
  'Decided to postpone buying a cargo bike until spring.', 'Chose Plausible over Google Analytics for the Trailhead site.',
  'Will keep on-call handovers written in the #payments-oncall channel.', "Decided to stop using Dropbox; photos go to the NAS at the parents' place.",
];

const decisions: Family = {
  name: 'decisions',
  memoryType: 'decision',
  count: 26,
  make: (pick) => ({ content: pick(DECISIONS) }),
};

const DEADLINES: ReadonlyArray<(pick: Pick, day: string) => string> = [
  (pick, day) => `Expense report for ${pick(['the conference', 'the customer visit', 'the offsite', 'train tickets'])} due ${after(day, 14)}.`,
  (_pick, day) => `Kestrel ${pick2(day, ['0.5', '0.6', '0.7'])} release planned around ${after(day, 45)}.`,
  (pick, day) => `${pick(['Renew', 'Cancel', 'Review'])} the ${pick(['Cloudflare R2 plan', 'museum card', '1Password family plan', 'newspaper subscription', 'Tailscale plan', 'Strava subscription'])} before ${after(day, 30)}.`,
  (pick, day) => `${pick(['Daan', 'Tomás', 'Priya', 'Olu', 'Bas'])}'s birthday is on ${after(day, 20)}; send a card.`,
  (pick, day) => `Postgres ${pick(['14', '15'])} on the ${pick(['ledger', 'merchants', 'analytics'])} database reaches end of support; plan the upgrade before ${after(day, 120)}.`,
  (pick, day) => `Certificate for ${pick(['the partner sandbox', 'api.northwind-ledger.com', 'the merchant portal'])} expires on ${after(day, 40)}.`,
  (pick, day) => `Submit ${pick(['the childcare allowance form', 'the parking permit renewal', 'the school registration form', 'the insurance claim'])} by ${after(day, 10)}.`,
];
const pick2 = (day: string, items: readonly string[]) => items[Date.parse(day) % items.length] ?? items[0]!;

const deadlines: Family = {
  name: 'deadlines',
  memoryType: 'foresight',
  count: 30,
  make: (pick, day) => ({ content: pick(DEADLINES)(pick, day) }),
};

const PREFERENCES = [
  'Prefers Firefox for personal browsing and Chrome for work.', 'Likes 25-minute focus blocks with a 5-minute break.',
  'Prefers UTC timestamps in logs.', 'Sketches designs in an A5 dotted notebook before writing anything.',
  'Drinks rooibos tea in the evening.', 'Likes table-driven tests in Go.', 'Prefers printed boarding passes as a backup.',
  'Likes to walk during one-on-ones when the weather allows.', 'Prefers to review pull requests in the morning after standup notes.',
  'Prefers Dutch for family messages and English for everything at work.', 'Likes a short written agenda at the top of shared docs.',
  'Prefers metric units and 24-hour times in every answer.', 'Likes to batch errands on Saturday mornings.',
  'Prefers reading release notes over watching conference videos.', 'Likes the office on Tuesdays and Thursdays; home the other days.',
  'Prefers Signal for friends, WhatsApp only for the school parents group.', 'Likes to keep the phone on silent during dinner.',
  'Prefers window blinds half closed when working; screen glare is annoying.', 'Likes Markdown tables over spreadsheets for small comparisons.',
];

const preferences: Family = {
  name: 'preferences',
  memoryType: 'preference',
  count: 19,
  make: (pick) => ({ content: pick(PREFERENCES) }),
};

export const DISTRACTOR_FAMILIES: readonly Family[] = [meetings, tickets, services, skills, errands, travel, media, family, decisions, deadlines, preferences];
