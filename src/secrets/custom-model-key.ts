/**
 * The SecretBox context of a custom model's API key: bound to the model's id, so a sealed key copied
 * into another model's row does not open.
 */
export function customModelKeyContext(modelId: string): string {
  return `custom-model:${modelId}:api_key`;
}
