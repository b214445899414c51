import { isDeprecated, type RoutableModel } from '../domain/routable-model';
import { allowedOnly, modelAllowed, type ModelAllowList } from '../domain/model-allow-list';
import { ApiError } from '../errors/api-error';
import type { ProviderRegistry } from '../providers/registry';
import { exclusionReason, remedyOf, type Limits } from '../routing/hard-limits';
import { chooseWithExploration } from '../routing/online/exploration';
import type { SpaceFeedback } from '../routing/online/space-feedback';
import type { RequestProfile } from '../routing/request-profile';
import { scoreCandidates, type CandidateScore, type ScoringInputs } from '../routing/scorer';
import { didYouMean } from '../text/close-names';
import type { PreparedCompletion } from './prepare-request';
import type { SpaceContext } from '../store/space-context';

export interface CandidateView {
  model: string;
  provider: string;
  score: number;
  quality: number;
  offline_quality: number;
  cost: number;
  latency: number;
}

/** How the router decided, for `metadata.scores.router` (and for learning from the answer's rating). */
export interface RouterDecision {
  /** Version of the router weights. */
  version: string;
  /** The kind of prompt the router took the request for. */
  kind: string;
  smart_learn: boolean;
  /** Whether this request tried a near-best, little-rated model (smart_learn's bounded exploration). */
  explored: boolean;
}

/** What `smart_learn` adds to a decision: the Space's ratings (which correct the quality), and the request id that decides exploration. */
export interface LearningInputs {
  requestId: string;
  feedback: SpaceFeedback;
}

/** Which models to try, in order, and why. */
export interface ModelPlan {
  /** The model called first. */
  readonly first: RoutableModel;
  /**
   * The models to try, in order, as the attempt runner walks them: after a named model, the alternatives
   * are ranked only when a failover first reaches past it.
   */
  readonly choices: Iterable<RoutableModel>;
  /** Every model to try, in order (ranks a named model's alternatives if nothing has yet). */
  readonly attempts: RoutableModel[];
  /** The ranking, when one was made: a named model that answered at once was not ranked, and lists no candidates. */
  readonly scores: { best_models: string[]; candidates: CandidateView[]; router: RouterDecision };
  /** The first model's score (0 when it was named and not scored). */
  readonly score: number;
  readonly warnings: string[];
}

export interface PlanInputs {
  prepared: PreparedCompletion;
  space: SpaceContext;
  profile: RequestProfile;
  registry: ProviderRegistry;
  /** Weights, quality and latency estimators; the quality's online correction comes from `learning`. */
  scoring: Omit<ScoringInputs, 'online'>;
  routerVersion: string;
  /** Present when `smart_learn` is on for the request. */
  learning: LearningInputs | null;
  now: Date;
  /** Whether a model of this name exists at all for the Space's organization (for a precise error). */
  modelExists(name: string): Promise<boolean>;
  /** The key's `allowed_models`, when it has a list: the plan (first model and alternatives) keeps to them. */
  allowedModels?: ModelAllowList;
  /** The service's own name (the router chooses), for the hint of an unknown name that meant it. */
  autoModelName?: string;
}

const view = (c: CandidateScore): CandidateView => ({
  model: c.model.model,
  provider: c.model.provider,
  score: c.score,
  quality: c.quality,
  offline_quality: c.offlineQuality,
  cost: c.cost,
  latency: c.latency,
});

function scoresOf(inputs: PlanInputs, scored: CandidateScore[], explored: boolean): ModelPlan['scores'] {
  return {
    best_models: scored.slice(0, 3).map((c) => c.model.model),
    candidates: scored.map(view),
    router: { version: inputs.routerVersion, kind: inputs.profile.reading.kind, smart_learn: inputs.learning !== null, explored },
  };
}

/** The candidate to answer with: the best, or under `smart_learn` rarely a near-best model the Space has rated little. */
function firstChoice(inputs: PlanInputs, scored: CandidateScore[]): { first: CandidateScore | null; explored: boolean } {
  const { learning } = inputs;
  if (!learning) return { first: scored[0] ?? null, explored: false };
  const ranked = scored.map((c) => ({ candidate: c, modelId: c.model.id, score: c.score, ratings: learning.feedback.ratings(c.model.id) }));
  const { chosen, explored } = chooseWithExploration(learning.requestId, ranked);
  return { first: chosen?.candidate ?? null, explored };
}

function uniqueById(models: RoutableModel[]): RoutableModel[] {
  const seen = new Set<string>();
  return models.filter((m) => !seen.has(m.id) && seen.add(m.id));
}

function limitsOf(inputs: PlanInputs): Limits {
  return { maxCost: inputs.prepared.policies.max_cost, needsGdprModel: inputs.prepared.privacy.needsGdprModel, now: inputs.now };
}

/** The models that can take this request in the Space: reachable provider, not deprecated, within the hard limits. */
/** A model of the Space left out of the request's choices, and why. */
interface Excluded {
  model: RoutableModel;
  /** Null: its provider cannot be called here (no key, no adapter). */
  reason: string | null;
}

function eligible(inputs: PlanInputs, models: RoutableModel[]): { models: RoutableModel[]; excluded: Excluded[] } {
  const limits = limitsOf(inputs);
  const excluded: Excluded[] = [];
  const ok = models.filter((model) => {
    const callable = inputs.registry.resolve(model) !== null;
    const reason = !callable ? null : isDeprecated(model, inputs.now) ? 'deprecated' : exclusionReason(model, inputs.profile, limits);
    if (!callable || reason !== null) excluded.push({ model, reason });
    return callable && reason === null;
  });
  return { models: ok, excluded };
}

/**
 * Why no model of the Space can take the request: the reasons of the models that could be called lead,
 * then how many cannot be called at all, then what would make it work (error path only).
 */
function noModelMessage(excluded: Excluded[], allowedOnly: boolean): string {
  if (excluded.length === 0) {
    return `No model of this Space can take this request (${allowedOnly ? "none of this key's allowed_models is active in it" : 'no model is active'}).`;
  }
  const callable = excluded.filter((entry) => entry.reason !== null);
  const uncalled = excluded.filter((entry) => entry.reason === null);
  const parts = callable.slice(0, 5).map((entry) => `${entry.model.model}: ${entry.reason}`);
  if (callable.length > 5) parts.push(`${callable.length - 5} more`);
  if (uncalled.length > 0) {
    const providers = [...new Set(uncalled.map((entry) => entry.model.provider))].join(', ');
    const more = callable.length > 0 ? ' more' : '';
    parts.push(`${uncalled.length}${more} ${uncalled.length === 1 ? 'is' : 'are'} on but cannot be called here (provider not configured: ${providers})`);
  }
  const remedies = [...new Set(callable.map((entry) => remedyOf(entry.reason ?? '')).filter((remedy): remedy is string => remedy !== null))];
  if (callable.length === 0) remedies.push(`set the key of a provider of the Space's models (GET /v1/models?all=true says which)`);
  const fix = remedies.length > 0 ? ` To make it work: ${remedies.join('; or ')}.` : '';
  return `No model of this Space can take this request: ${parts.join('; ')}.${fix}`;
}

/**
 * The first model, then every alternative: the failover chain first (when switched on), then the
 * ranking. The same for a named model and an automatic choice. The list is not cut to
 * `max_switch_model_retries`: which models are cooling down (open breakers) is known only when they
 * are tried, and the attempt runner passes over those without counting a switch, so the switches
 * reach models that may answer.
 */
function withAlternatives(first: RoutableModel, inputs: PlanInputs, ranked: RoutableModel[]): RoutableModel[] {
  const chain = inputs.space.hasFailoverChain ? eligible(inputs, inputs.space.failoverChain).models : [];
  return uniqueById([first, ...chain, ...ranked]);
}

/** The eligible models, scored and ranked best first. */
function ranked(inputs: PlanInputs): { scored: CandidateScore[]; excluded: Excluded[] } {
  const { models, excluded } = eligible(inputs, inputs.space.models);
  const scored = scoreCandidates(models, inputs.profile, { ...inputs.scoring, weights: inputs.prepared.weights, online: inputs.learning?.feedback });
  return { scored, excluded };
}

/** A plan whose models and ranking are known at once. */
function rankedPlan(inputs: PlanInputs, model: RoutableModel, { scored, explored }: { scored: CandidateScore[]; explored: boolean }): ModelPlan {
  const attempts = withAlternatives(
    model,
    inputs,
    scored.map((c) => c.model),
  );
  const score = scored.find((c) => c.model.id === model.id)?.score ?? 0;
  return { first: model, choices: attempts, attempts, scores: scoresOf(inputs, scored, explored), score, warnings: namedWarnings(inputs, model) };
}

function namedWarnings(inputs: PlanInputs, model: RoutableModel): string[] {
  if (inputs.prepared.requestedModel === null || !isDeprecated(model, inputs.now)) return [];
  return [`Model '${inputs.prepared.requestedModel}' is deprecated${model.until ? ` and will be retired on ${model.until.toISOString().slice(0, 10)}` : ''}.`];
}

/**
 * A named model's plan, ranked only when asked: a request answered by the model it names needs
 * neither the prompt's token count nor the router's reading of it (~10 µs for a short prompt, ~0.1 ms
 * per 1,000 characters), only a failover does.
 */
class NamedPlan implements ModelPlan {
  private ranking: CandidateScore[] | null = null;
  private ordered: RoutableModel[] | null = null;
  readonly warnings: string[];
  readonly choices: Iterable<RoutableModel>;

  constructor(
    readonly first: RoutableModel,
    private readonly inputs: PlanInputs,
  ) {
    this.warnings = namedWarnings(inputs, first);
    this.choices = { [Symbol.iterator]: () => this.walk() };
  }

  private *walk(): Generator<RoutableModel> {
    yield this.first;
    yield* this.attempts.slice(1);
  }

  get attempts(): RoutableModel[] {
    this.ranking ??= ranked(this.inputs).scored;
    this.ordered ??= withAlternatives(
      this.first,
      this.inputs,
      this.ranking.map((c) => c.model),
    );
    return this.ordered;
  }

  get scores(): ModelPlan['scores'] {
    if (this.ranking) return scoresOf(this.inputs, this.ranking, false);
    return { best_models: [], candidates: [], router: { version: this.inputs.routerVersion, kind: '', smart_learn: false, explored: false } };
  }

  get score(): number {
    return this.ranking?.find((c) => c.model.id === this.first.id)?.score ?? 0;
  }
}

/** Names clients send meaning "let the service choose". */
const ROUTER_WORDS = new Set(['auto', 'automatic', 'default', 'router', 'best', 'any']);

/**
 * "Model 'x' does not exist. Did you mean …?": the closest of the names this Space can answer with now,
 * or, for a name that meant the router ('auto', 'default', the service's name in other letters), how to
 * ask for it (error path only).
 */
function unknownModel(inputs: PlanInputs, name: string): ApiError {
  const auto = inputs.autoModelName;
  if (auto && (ROUTER_WORDS.has(name.toLowerCase()) || name.toLowerCase() === auto.toLowerCase())) {
    return new ApiError('not_found', `Model '${name}' does not exist. To let the router choose, leave 'model' out or send '${auto}'.`, 'model');
  }
  const usable = inputs.space.models.filter((m) => inputs.registry.resolve(m) !== null).map((m) => m.model);
  const hint = didYouMean(name, auto ? [auto, ...usable] : usable);
  return new ApiError('not_found', `Model '${name}' does not exist.${hint ? ` ${hint}` : ''}`, 'model');
}

/** Why the named model's provider cannot be called, as the listings say it (`GET /v1/models?all=true`). */
function providerProblem(inputs: PlanInputs, model: RoutableModel): string {
  const why = inputs.registry.explain?.(model);
  return why ? `${why.message} (${why.code})` : `its provider '${model.provider}' is not configured`;
}

/** The named model, checked: active in the Space, its provider configured, able to take the request. */
async function namedModel(inputs: PlanInputs, name: string): Promise<RoutableModel> {
  const model = inputs.space.models.find((m) => m.model === name || `${m.provider}/${m.namespace}` === name);
  if (!model) {
    if (inputs.space.embeddingModels.some((m) => m.model === name)) {
      throw new ApiError('model_not_available', `Model '${name}' is an embedding model: call POST /v1/embeddings with it.`, 'model');
    }
    if (await inputs.modelExists(name)) throw new ApiError('model_not_available', `Model '${name}' is not active in this Space.`, 'model');
    throw unknownModel(inputs, name);
  }
  if (!inputs.registry.resolve(model)) {
    throw new ApiError('model_not_available', `Model '${name}' is unavailable: ${providerProblem(inputs, model)}.`, 'model');
  }
  const reason = exclusionReason(model, inputs.profile, { ...limitsOf(inputs), maxCost: null });
  if (reason) throw new ApiError('model_not_available', `Model '${name}' cannot take this request: ${reason}.`, 'model');
  return model;
}

/** The inputs with the Space's models and failover chain cut to the key's allowed models. */
function keptToAllowed(inputs: PlanInputs, allowed: ModelAllowList): PlanInputs {
  const space = { ...inputs.space, models: allowedOnly(inputs.space.models, allowed), failoverChain: allowedOnly(inputs.space.failoverChain, allowed) };
  return { ...inputs, space };
}

/**
 * Named model if the request names one, else the best-scored eligible models. A named model is ranked
 * against the others at once only under `smart_learn` (its ratings learn from the ranking); otherwise
 * when a failover needs the alternatives.
 */
export async function planModels(given: PlanInputs): Promise<ModelPlan> {
  const name = given.prepared.requestedModel;
  // A key without a list (the usual case) plans over the Space as it is, at no cost.
  const inputs = given.allowedModels ? keptToAllowed(given, given.allowedModels) : given;
  if (name !== null) {
    const model = await namedModel(given, name);
    if (given.allowedModels && !modelAllowed(model, given.allowedModels)) {
      throw new ApiError(
        'model_not_allowed',
        `Model '${name}' is not among the models this key may call (allowed_models: ${given.allowedModels.join(', ')}).`,
        'model',
      );
    }
    return inputs.learning ? rankedPlan(inputs, model, { scored: ranked(inputs).scored, explored: false }) : new NamedPlan(model, inputs);
  }
  const { scored, excluded } = ranked(inputs);
  const { first: best, explored } = firstChoice(inputs, scored);
  if (!best) throw new ApiError('model_not_available', noModelMessage(excluded, given.allowedModels !== undefined), 'model');
  return rankedPlan(inputs, best.model, { scored, explored });
}
