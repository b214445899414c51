import { ApiError } from '../../errors/api-error';
import { didYouMean } from '../../text/close-names';

/**
 * Refuses an `allowed_models` entry that no model of the organization answers to (a model's name, or its
 * `provider/namespace`): a key limited to a mistyped name would be refused on every call.
 */
export function checkAllowedModelsKnown(allowed: readonly string[], known: readonly string[]): void {
  const names = new Set(known);
  allowed.forEach((name, index) => {
    if (names.has(name)) return;
    const hint = didYouMean(name, known);
    throw new ApiError(
      'invalid_value',
      `Invalid value for 'allowed_models[${index}]': no model is named '${name}' (give a model's name, or its provider/namespace).${hint ? ` ${hint}` : ''}`,
      `allowed_models[${index}]`,
    );
  });
}
