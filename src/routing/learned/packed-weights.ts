import { z } from 'zod';

/** A weight vector stored as signed bytes times one scale, base64: about 1/6 of its JSON size in floats. */
export const packedSchema = z.object({ length: z.number().int().nonnegative(), scale: z.number().nonnegative(), bytes: z.string() });
export type Packed = z.infer<typeof packedSchema>;

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
