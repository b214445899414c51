/**
 * Kinds of prompt the router scores a model on: the 14 MMLU-Pro subject categories (spelled as in the
 * MMLU-Pro dataset) plus four task kinds. The router maps each prompt to one of these keys; the model
 * catalog (`prisma/catalog/models.json`) and custom models give a probability for each.
 */
export const QUALITY_CATEGORIES = [
  'biology',
  'business',
  'chemistry',
  'computer science',
  'economics',
  'engineering',
  'health',
  'history',
  'law',
  'math',
  'other',
  'philosophy',
  'physics',
  'psychology',
  'code',
  'writing',
  'reasoning',
  'chat',
] as const;
export type QualityCategory = (typeof QUALITY_CATEGORIES)[number];
