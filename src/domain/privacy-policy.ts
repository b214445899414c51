/** 1 everything kept; 2 conversation text masked wherever it rests; 3 nothing of it kept. */
export type PrivacyLevel = 1 | 2 | 3;

/**
 * What a request's privacy level means. The level is decided once where the request is accepted (the
 * stricter of its Space's level and its own `custom_headers.policies.privacy_level`) and carried in its
 * job; every step downstream reads these answers (`privacyPolicyOf` its level, one table lookup) instead
 * of comparing levels.
 */
export interface PrivacyPolicy {
  readonly level: PrivacyLevel;
  /** Conversation text (prompts, answers, what plugins found) is replaced by a mask in what is kept: logs, kept jobs. */
  readonly masksContent: boolean;
  /** The request writes its log (level 3 writes none). */
  readonly writesLog: boolean;
  /** The answer may be kept to be read later (async jobs, stored responses). */
  readonly keepsAnswer: boolean;
  /** Only a model processed under GDPR terms may answer. */
  readonly needsGdprModel: boolean;
  /** Plugin results may be shared with the Space's other requests through the result cache. */
  readonly sharesPluginResults: boolean;
  /** What Redis keeps of the job once it has ended (bull-board's view): all of it, its request masked, or nothing. */
  readonly keptJob: 'whole' | 'masked' | 'none';
}

const POLICIES: Readonly<Record<PrivacyLevel, PrivacyPolicy>> = {
  1: Object.freeze({ level: 1, masksContent: false, writesLog: true, keepsAnswer: true, needsGdprModel: false, sharesPluginResults: true, keptJob: 'whole' }),
  2: Object.freeze({ level: 2, masksContent: true, writesLog: true, keepsAnswer: true, needsGdprModel: false, sharesPluginResults: false, keptJob: 'masked' }),
  3: Object.freeze({ level: 3, masksContent: true, writesLog: false, keepsAnswer: false, needsGdprModel: true, sharesPluginResults: false, keptJob: 'none' }),
};

/** The policy of a level (levels outside 1–3 count as the nearest one). */
export function privacyPolicyOf(level: number): PrivacyPolicy {
  return POLICIES[level >= 3 ? 3 : level <= 1 ? 1 : 2];
}

/** The level a request runs at: the stricter of its Space's and its own. A request can hide more, never less. */
export function privacyPolicyFor(spaceLevel: number, requestLevel: number | undefined): PrivacyPolicy {
  return privacyPolicyOf(Math.max(spaceLevel, requestLevel ?? 1));
}
