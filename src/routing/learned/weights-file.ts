import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { DENSE_FEATURES } from './prompt-features';
import type { RouterModel } from './router-model';

/** A weight vector stored as signed bytes times one scale, base64: about 1/6 of its JSON size in floats. */
export const packedSchema = z.object({ length: z.number().int().nonnegative(), scale: z.number().nonnegative(), bytes: z.string() });
export type Packed = z.infer<typeof packedSchema>;

/** Packs a weight vector (written by `router:train`; read back by `unpack` as the nearest multiple of its scale). */
export function pack(values: ArrayLike<number>): Packed {
  let max = 0;
  for (let i = 0; i < values.length; i++) max = Math.max(max, Math.abs(values[i]));
  const scale = max / 127;
  const bytes = new Int8Array(values.length);
  if (scale > 0) for (let i = 0; i < values.length; i++) bytes[i] = Math.round(values[i] / scale);
  return { length: values.length, scale, bytes: Buffer.from(bytes.buffer).toString('base64') };
}

export function unpack(packed: Packed): Float64Array {
  const buffer = Buffer.from(packed.bytes, 'base64');
  if (buffer.length !== packed.length) throw new Error(`Packed weights hold ${buffer.length} values, expected ${packed.length}.`);
  const bytes = new Int8Array(buffer.buffer, buffer.byteOffset, buffer.length);
  return Float64Array.from(bytes, (byte) => byte * packed.scale);
}

/**
 * The shipped router weights: what transfers to any model (the kind classifier, the shared ease
 * weights, completion length) and nothing about the models it was trained on, since catalog models
 * are routed by their quality profiles. Written by `npm run router:train` (tools/router-lab/learned/weights-writer.ts, offline).
 */
export const weightsFileSchema = z.object({
  format: z.literal('switchyard-router-weights/1'),
  version: z.string().min(1),
  training: z.object({ seed: z.number().int(), sets: z.record(z.string(), z.number().int()), models: z.number().int() }),
  buckets: z.number().int().positive(),
  kinds: z.array(z.string().min(1)).min(1),
  classifier: z.array(packedSchema),
  ease: packedSchema,
  ease_by_kind: z.array(z.number()),
  profile_slope: z.number(),
  length: z.object({ typical: z.number(), weights: packedSchema }),
});
export type WeightsFile = z.infer<typeof weightsFileSchema>;

/** The router a weights file describes: no per-model parts, every model is routed by its profile. */
export function fromWeightsFile(file: WeightsFile): RouterModel {
  const dimension = file.buckets + DENSE_FEATURES;
  const rows = file.classifier.map(unpack);
  if (rows.length !== file.kinds.length || rows.some((row) => row.length !== dimension)) {
    throw new Error(`Router weights ${file.version}: the classifier does not match ${file.kinds.length} kinds of ${dimension} features.`);
  }
  const classifierWeights = new Float64Array(file.kinds.length * dimension);
  const K = file.kinds.length;
  rows.forEach((row, k) => row.forEach((value, i) => (classifierWeights[i * K + k] = value)));
  return {
    version: file.version,
    buckets: file.buckets,
    classifier: { kinds: file.kinds, weights: classifierWeights, dimension },
    outcome: {
      models: [],
      kinds: file.kinds,
      dimension,
      theta: new Float64Array(0),
      slope: new Float64Array(0),
      ease: unpack(file.ease),
      residual: new Float64Array(0),
    },
    easeByKind: Float64Array.from(file.ease_by_kind),
    length: { models: [], bias: new Float64Array(0), typical: file.length.typical, weights: unpack(file.length.weights) },
    profileSlope: file.profile_slope,
  };
}

export function loadWeightsFile(path: string): RouterModel {
  const parsed = weightsFileSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  if (!parsed.success) throw new Error(`Router weights ${path} are invalid: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`);
  return fromWeightsFile(parsed.data);
}
