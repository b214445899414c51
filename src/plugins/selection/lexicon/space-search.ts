import { cue, type Cue, type PluginModel, words } from '../cue';
import { codeCues } from './code-context';

/**
 * space-search: the request is about the Space's own documents: "our handbook", "the uploaded
 * contract", "according to the policy". Only considered when the Space has files at all.
 */

/** Kinds of document an organisation uploads. */
const DOC_NOUNS = [
  'handbook',
  'manual',
  'polic(?:y|ies)',
  'guidelines?',
  'guide',
  'contract',
  'agreement',
  'lease',
  'nda',
  'reports?',
  'minutes',
  'meeting notes',
  'notes',
  'spec(?:ification)?(?: sheet)?',
  'runbook',
  'playbook',
  'documentation',
  'docs',
  'documents?',
  'files?',
  'thesis',
  'paper',
  'proposals?',
  'faqs?',
  'price list',
  'spreadsheet',
  'pdf',
  '(?:project |incident response |business |action )?plan',
  '(?:privacy )?notice',
  '(?:design )?docs?',
  'checklist',
  '(?:tracker )?sheet',
  'tracker',
  'rules',
  'menu',
  '\\p{L}*richtlinien?',
  'procedures?',
  'memo',
  'slides?',
  'deck',
  'roadmap',
  'okrs?',
  'protokoll\\p{L}*',
  'procès-verbal',
  'project plan',
  'code of conduct',
  'style guide',
  'release notes',
  'terms',
  'sla',
  'benefits',
  'knowledge base',
  'wiki',
  'handbuch',
  '(?:arbeits)?vertrag',
  'richtlinien?',
  'dokument(?:e|en)?',
  'règlement(?: intérieur)?',
  'contrat',
  'politique',
  'contrato',
  'política',
  'documento',
];

const DOC = DOC_NOUNS.join('|');

/** "the Q3 report", "our travel expense policy": a determiner, up to three modifiers, a document. */
const THE_DOCUMENT = words(
  `(?:the|our|my|this|these|that|your|unse?r\\p{L}*|im|in der|dem|das|den|des|le|la|les|du|notre|nos|el|los|las|nuestr\\p{L}*|según la)(?: [\\p{L}\\p{N}'-]+){0,3} (?:${DOC})`,
);

const SEARCH_OUR_FILES = words(
  'uploaded',
  'i uploaded',
  'hochgeladen\\p{L}*',
  'téléversé\\p{L}*',
  'in (?:the|my|our) (?:files|documents|docs|knowledge base)',
  'in this space',
  'search our',
  'look in the files',
  'according to (?:the|our|my)',
  'laut (?:unse?r\\p{L}*|der|dem|des)',
  'selon (?:le|la|les|notre|nos)',
  'según (?:el|la|los|las|nuestr\\p{L}*)',
  'based on the (?:files|documents)',
  'per the',
);

const ASKS_WHAT_IT_SAYS = words(
  'say(?:s)? about',
  'talks? about',
  'mention(?:s|ed)?',
  'zusammenfassung',
  'what (?:does|did|do) .{1,40} say',
  'mentioned in',
  'listed in',
  'covers?',
  'described',
  'steht',
  'dit',
  'dice',
  'under our',
  'from the',
  'quote',
  'summari[sz]e',
  'fasse',
  'résume',
);

const GENERAL_QUESTION = words('in general', 'generally(?: speaking)?', 'for example', 'typical(?:ly)?');

const OURS = words('our', 'we', 'us', 'employees', 'unse?r\\p{L}*', 'notre', 'nos', 'nuestr\\p{L}*', 'nos corresponden');

export const SPACE_SEARCH_MODEL: PluginModel = {
  bias: -3,
  cues: [
    cue(SEARCH_OUR_FILES, 4, { group: 'ask', reason: "asks about the Space's files", explicit: true }),
    cue(THE_DOCUMENT, 3.5, { group: 'document', reason: 'refers to a document' }),
    cue(words(DOC), 1.5, { group: 'document', reason: 'mentions a kind of document' }),
    cue(ASKS_WHAT_IT_SAYS, 1, { group: 'says', reason: 'asks what a text says' }),
    cue(OURS, 0.5, { group: 'ours', reason: 'asks about the organisation' }),
    cue(GENERAL_QUESTION, -2.5, { group: 'general', reason: 'asks in general' }),
    ...codeCues({ task: -5, term: -2, syntax: -3 }),
  ] satisfies Cue[],
};
