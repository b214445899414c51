import type { RouterModel } from '../../../src/routing/learned/router-model';
import { pack, type WeightsFile } from '../../../src/routing/learned/weights-file';

/** The shipped part of a trained router, in the file format the service loads (`fromWeightsFile` reads it back). */
export function toWeightsFile(model: RouterModel, training: WeightsFile['training']): WeightsFile {
  const { kinds, weights, dimension } = model.classifier;
  return {
    format: 'switchyard-router-weights/1',
    version: model.version,
    training,
    buckets: model.buckets,
    kinds,
    classifier: kinds.map((_, k) => pack(Float64Array.from({ length: dimension }, (_, i) => weights[i * kinds.length + k]))),
    ease: pack(model.outcome.ease),
    ease_by_kind: Array.from(model.easeByKind, (value) => Math.round(value * 1e6) / 1e6),
    profile_slope: Math.round(model.profileSlope * 1e6) / 1e6,
    length: { typical: Math.round(model.length.typical * 1e6) / 1e6, weights: pack(model.length.weights) },
  };
}
