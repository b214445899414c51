import { cue, type PluginModel, words } from '../cue';
import { codeCues } from './code-context';

/**
 * image-generation-generic: the request asks for a picture to be made ("draw a cat", "create a logo
 * for my bakery"). Describing an attached photo, resizing images in code and Docker images are not.
 */

const IMAGE_NOUNS =
  'images?|graphics?|(?:product )?shots|visuals?|cover art|pictures?|pics?|photos?|illustrations?|drawings?|paintings?|logos?|icons?|posters?|banners?|avatars?|wallpapers?|thumbnails?|artwork|art|concept art|cartoons?|portraits?|sprites?|stickers?|memes?|watercolou?rs?|sketch(?:es)?|renders?|mascots?|card|infographic|bild(?:er)?|grafik|dessins?|illustrations?|imagen(?:es)?|dibujos?|ilustraci[oó]n';

const MAKE_VERBS =
  "generate|create|make|whip up|design|produce|render|give me|get|show me|i need|i want|i'd like|i'd love|can i get|erstelle|erzeuge|mach|génère|crée|fais|genera|crea|haz";

/** A making verb and an image noun a few words apart: "generate 2 variations of a mascot". */
const MAKE_AN_IMAGE = words(`(?:${MAKE_VERBS})(?: [\\p{L}\\p{N}'-]+){0,5} (?:${IMAGE_NOUNS})`);

/** Verbs that mean a picture on their own. */
const DRAW = words(
  'render(?: me)? (?:a|an)',
  'draw(?: me)?',
  'paint(?: me)?',
  'sketch',
  'illustrate',
  'zeichne',
  'male',
  'dessine',
  'dibuja(?:me)?',
  'dibújame',
  'pinta',
  'dessine-moi',
);

const PICTURE_IT = words(
  'show me what .{1,60} (?:would|might|could) look like',
  '(?:show|give) (?:it to )?me (?:as )?an image',
  '(?:turn|transform|convert|make) (?:this|that|the|my) (?:photo|picture|image|selfie)(?: [\\p{L}-]+){0,3} into',
  'visuali[sz]e',
  'imagine',
);

const STYLE = words(
  'watercolou?r',
  'oil painting',
  'photorealistic',
  '4k',
  '8k',
  'high detail',
  'in the style of',
  'pixel art',
  '(?:anime|cartoon|3d)[- ]style',
  'minimalist',
  'concept art',
  'style',
);

/** Senses of the nouns and verbs that are not about making a picture. */
const NOT_A_PICTURE = words(
  'draw(?:ing)? (?:conclusions?|attention|inspiration|the line|a distinction|up|down|blood|a blank|lots)',
  'draw down',
  'docker image',
  'container image',
  'image (?:processing|formats?|classification|recognition|convolution|segmentation)',
  'convolution',
  'jpeg',
  'png',
  'ascii',
  'mermaid',
  'svg',
  'diagram',
  'plot',
  'chart',
  'graph',
  'uml',
  'tikz',
  "(?:describe|what(?:'s| is)?(?: \\p{L}+){0,4} in|what does) (?:this|the|my|that) (?:photo|picture|image|diagram)",
  'image of the company',
  'public image',
  'describe',
);

export const IMAGE_GENERATION_MODEL: PluginModel = {
  bias: -3,
  cues: [
    cue(MAKE_AN_IMAGE, 4, { group: 'make', reason: 'asks for a picture to be made', explicit: true }),
    cue(DRAW, 3.5, { group: 'make', reason: 'asks for a drawing', explicit: true }),
    cue(PICTURE_IT, 3.5, { group: 'make', reason: 'asks to see something pictured', explicit: true }),
    cue(words(IMAGE_NOUNS), 1.5, { group: 'noun', reason: 'names a kind of picture' }),
    cue(STYLE, 1.5, { group: 'style', reason: 'describes a visual style' }),
    cue(words('how (?:do|can|should|would) (?:i|we)'), -2, { group: 'how-to', reason: 'asks how to do it oneself' }),
    cue(NOT_A_PICTURE, -4, { group: 'not-a-picture', reason: 'means another sense of the word' }),
    ...codeCues({ task: -5, term: -3, syntax: -3 }),
  ],
};
