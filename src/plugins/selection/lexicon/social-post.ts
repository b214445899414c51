import { cue, type PluginModel, words } from '../cue';
import { codeCues } from './code-context';

/**
 * social-post: the request asks to publish on a social network ("post this on Mastodon", "tweet
 * that we open at 9"). Drafting a post, asking how posting works, and HTTP POST are not. The caller
 * offers it only when it is allowed (named in `plugins`, or allowed by the Space for auto_tools).
 */

const NETWORK = words(
  'mastodon',
  'bluesky',
  'bsky',
  'twitter',
  'x\\.com',
  'fediverse',
  'social(?: media| networks?| accounts?| channels?| feeds?)?',
  'socials',
  'followers',
  'timeline',
  'our (?:accounts?|channels?|feed)',
  'redes sociales',
  'réseaux sociaux',
  'sozialen (?:medien|netzwerken)',
);

const PUBLISH_VERBS = words(
  'post(?:ed|ing)?',
  'publish(?:ed)?',
  'share',
  'announce',
  'send out',
  'put (?:a |the |this )?(?:message |post |note )?up',
  'let (?:[\\p{L}]+ ){0,4}know',
  'cross-post',
  'veröffentliche\\p{L}*',
  'poste',
  'teile',
  'publie',
  'partage',
  'publica',
  'comparte',
);

/** Verbs that are a network's own word for posting: "tweet this", "toot:", "skeet it". */
const NETWORK_VERB = words('(?:tweet|toot|skeet)(?: (?:it|this|that|the|them|our|my)|:| for me)', '(?:and|then) (?:post|tweet|toot|publish) it');

const STATUS_UPDATE = words('publish (?:a |the )?(?:status|update)', 'status update');

/** Writing for the user to post, or asking about posting: the user publishes, not us. */
const ONLY_DRAFT = words(
  'drafts?',
  'ideas? for',
  'that i can post',
  "i(?:'ll| will) post",
  'myself',
  'character limit',
  'how (?:do|to|should|often|can)',
  "what(?:'s| is) a good",
  'tips',
  'advice',
  'is it (?:rude|ok|okay|wise|legal)',
  'schedule',
  'strategy',
);

export const SOCIAL_POST_MODEL: PluginModel = {
  bias: -3,
  cues: [
    cue(PUBLISH_VERBS, 5, { group: 'publish', reason: 'asks to publish on a social network', explicit: true, with: NETWORK }),
    cue(NETWORK_VERB, 4.5, { group: 'publish', reason: 'asks to publish a post', explicit: true }),
    cue(STATUS_UPDATE, 3.5, { group: 'publish', reason: 'asks to publish a status update', explicit: true }),
    cue(NETWORK, 1, { group: 'network', reason: 'names a social network' }),
    cue(words('tweet', 'toot', 'skeet'), 1, { group: 'network', reason: 'names a post' }),
    cue(ONLY_DRAFT, -4, { group: 'draft', reason: 'asks for a draft or advice, not a post' }),
    ...codeCues({ task: -5, term: -4, syntax: -3 }),
  ],
};
