/** A field's path as the `param` of an error names it: `messages[0].content`, `custom_headers.labels.team`. */
export function paramPath(keys: readonly PropertyKey[]): string {
  return keys
    .map((key) => (typeof key === 'number' ? `[${key}]` : String(key)))
    .join('.')
    .replace(/\.\[/g, '[');
}
