import { cue, type Cue, type PluginModel, words } from '../cue';
import { codeCues } from './code-context';

/**
 * web-search: the request needs facts fresher than a model's training data (news, prices, scores,
 * weather, schedules, releases) or asks to look something up. One time word alone ("today I feel
 * sad") is not enough; a time word with a topic, or an explicit ask, is.
 */

const LOOK_IT_UP = words(
  'search(?:ing)?(?: (?:on|in))? (?:the )?(?:web|internet|online|google)',
  'web ?search',
  'search (?:for|online)',
  '(?:check|find|look|search|browse)(?:ing)?(?: (?:it|this|that|them))? (?:online|on the (?:web|internet))',
  'look(?:ing)?(?: (?:it|this|that|them|anything|something|\\p{L}+))? up',
  'google (?:the|it|this|that|for|how|what|when|who|whether|if)',
  'find (?:me )?(?:recent|the latest|latest|current|fresh|up-to-date|sources|articles|reviews)',
  'fresh sources',
  'fact-check',
  'check the web',
  'browse',
  'im internet',
  'online (?:suchen|nachschauen|recherchieren)',
  'such\\p{L}*(?: mal)?(?: im internet| online| nach)',
  'recherchier\\p{L}*',
  '(?:internet|web)suche',
  'recherche(?:r)? (?:sur )?(?:le web|internet)',
  'sur (?:le web|internet)',
  'cherche\\p{L}*',
  'busca\\p{L}*(?: en (?:internet|la web|google))?',
  'en (?:internet|la web)',
);

/** Words that ask for the newest state of something on their own. */
const NEWEST = words(
  'latest',
  'newest',
  'most recent',
  'up[- ]to[- ]date',
  'right now',
  'at the moment',
  'as of (?:today|now|this \\p{L}+)',
  'this (?:week|weekend|month|season)',
  'breaking',
  'trending',
  'any (?:news|updates?)',
  "what(?:'s|s| is)? going on",
  'is it going to (?:rain|snow|be (?:sunny|cold|hot|warm|windy))',
  'diese woche',
  'cette semaine',
  'esta semana',
  'the new (?:[\\p{L}\\p{N}-]+ ){0,2}(?:release|version|model|update|album|season|phone)',
  'aktuellste\\p{L}*',
  'neueste\\p{L}*',
  'dernière?s? (?:nouvelles|informations|actualités)',
  'últimas? noticias',
);

/** Words that date a question, but also everyday talk ("today I feel sad"). */
const NOW = words(
  'recent(?:ly)?',
  'current(?:ly)?',
  'this year',
  'this (?:morning|evening)',
  'updates? on',
  'gestern',
  'hier',
  'ayer',
  "today(?:'s)?",
  "tonight(?:'s)?",
  'yesterday',
  'last night',
  'tomorrow',
  'next (?:week|month|friday|monday|tuesday|wednesday|thursday|saturday|sunday)',
  'this (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)',
  'now',
  'still',
  'yet',
  'aktuell\\p{L}*',
  'heute',
  'morgen',
  'nächste\\p{L}*',
  "aujourd'hui",
  'dernière?s?',
  'actuel\\p{L}*',
  'demain',
  'hoy',
  'últim[oa]s?',
  'actual(?:es)?',
  'mañana',
);

const FRESH_TOPIC = words(
  'news',
  'headlines?',
  'weather',
  'forecast',
  'rain',
  'snow',
  'temperature',
  'trading(?: at)?',
  '(?:usd|eur|gbp|chf|jpy|cny|cad|aud)',
  'announced',
  'cancel(?:l)?ed',
  'laws?',
  'bill',
  'earthquake',
  'floods?',
  'wildfires?',
  'hurricane',
  'storm',
  'coach',
  'mission',
  'movies?',
  'films?',
  'sales figures',
  'figures',
  'prices?',
  'pricing',
  'costs?',
  'how much (?:is|are|does|do)',
  'exchange rate',
  'stocks?',
  'shares',
  'stock market',
  'bitcoin',
  'gold',
  'mortgage rates?',
  'inflation rate',
  'interest rates?',
  'score',
  'who won',
  'results?',
  'standings',
  'league table',
  'top of the',
  'elections?',
  'polls?',
  'release date',
  'released?',
  'launch(?:es)?',
  'recalls?',
  'opening hours',
  'open on',
  'delays?',
  'closed',
  "is (?:it |[\\p{L}\\p{N}'-]+ ){0,3}open",
  'tickets?',
  'schedule(?:d)?',
  'down',
  'prime minister',
  'president',
  'ceo',
  'population',
  'people saying',
  'reviews',
  'changelog',
  'version',
  'eruption',
  'strikes?',
  'gewonnen',
  'rate',
  'outage',
  'guidance',
  'consensus',
  'nachrichten',
  'wetter',
  'kurs',
  'preis',
  'heimspiel',
  'nouvelles',
  'météo',
  'temps',
  'horaires',
  'prix',
  'grève',
  'noticias',
  'tiempo',
  'precio',
);

const TOPIC_WORDS = 'score|price|prices|weather|forecast|exchange rate|rate|rates|standings|results?|population|status|odds|temperature|ticket price';

/** "what's the score in ...", "how much is the ticket price for ...": a question about a fact that moves. */
const QUESTION_ABOUT_TOPIC = words(
  `(?:what(?:'s| is| are| was)|how much (?:is|are|does|do)|how high is|who(?:'s| is)) (?:the |a )?(?:[\\p{L}\\p{N}'-]+ ){0,3}(?:${TOPIC_WORDS})(?= (?:for|of|in|at|on|between|to|today|now|this)|\\?|$)`,
);

/** Topics that are about the present by themselves: a share price, a forecast, a result. */
const LIVE_TOPIC = words(
  'trading at',
  '(?:stock|share) price',
  'exchange rate',
  'weather forecast',
  'forecast for',
  '(?:final|live) score',
  'opening hours',
  'box office',
  '(?:euros?|dollars?|pounds?|yen|francs?|usd|eur|gbp|chf|jpy)(?: to| in| vs\\.?| ?/ ?)(?: the)? (?:euros?|dollars?|pounds?|yen|francs?|usd|eur|gbp|chf|jpy)',
  'wechselkurs',
  'taux de change',
  'tipo de cambio',
);

/** "tweet that we open at 9 tomorrow": news the user passes on, not a question. */
const TELLING = words("(?:tweet|post|announce|share|publish|toot)(?: [\\p{L}\\p{N}'-]+){0,6} (?:that|saying)", 'let (?:[\\p{L}]+ ){0,4}know');

/** "how do I search for text with grep": searching is the topic, not the request. */
const HOW_TO_SEARCH = words('how (?:do|can|should|would|to)(?: i| we| you)? (?:search|find|look up|google)');

/** Only the years around `now` count: "in 2026" asks for news in 2026, "in 1066" does not. */
function recentYears(now: Date): Cue {
  const year = now.getUTCFullYear();
  return cue(words(String(year - 1), String(year), String(year + 1)), 2, { group: 'year', reason: 'names a recent year' });
}

const BASE_CUES: readonly Cue[] = [
  cue(LOOK_IT_UP, 4, { group: 'ask', reason: 'asks to look something up', explicit: true }),
  cue(NEWEST, 2.5, { group: 'now', reason: 'asks for the newest state of things' }),
  cue(NOW, 2, { group: 'now', reason: 'asks about current events' }),
  cue(LIVE_TOPIC, 3, { group: 'topic', reason: 'asks for a fact of the moment' }),
  cue(QUESTION_ABOUT_TOPIC, 3, { group: 'topic', reason: 'asks for a fact that changes' }),
  cue(TELLING, -2, { group: 'telling', reason: 'states news to pass on rather than asking' }),
  cue(FRESH_TOPIC, 1.5, { group: 'topic', reason: 'asks about facts that change' }),
  cue(HOW_TO_SEARCH, -4, { group: 'how-to', reason: 'asks how to search, not for a search' }),
  // A technical term is weak evidence here: "what's new in the latest Python release?" is news.
  ...codeCues({ task: -5, term: -1.5, syntax: -3 }),
];

const models = new Map<number, PluginModel>();

export function webSearchModel(now: Date): PluginModel {
  const year = now.getUTCFullYear();
  let model = models.get(year);
  if (!model) {
    model = { bias: -2.5, cues: [...BASE_CUES, recentYears(now)] };
    models.set(year, model);
  }
  return model;
}
