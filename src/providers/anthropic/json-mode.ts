import type { ResponseFormat } from '../../domain/chat';

const ONLY_JSON = 'Output only the JSON: no prose before or after it, and no Markdown code fences.';

/**
 * Anthropic has no `response_format`, so JSON mode becomes a system instruction. A forced tool whose
 * input is the answer was the alternative; it was not chosen because it cannot be combined with the
 * client's own tools, is refused together with extended thinking, and would turn a text answer into a
 * `tool_use` block that every path (stream included) must rewrite back into content. The instruction
 * keeps text as text; the price is that valid JSON is very likely rather than guaranteed.
 */
export function jsonModeInstruction(format: ResponseFormat | undefined): string | undefined {
  if (!format || format.type === 'text') return undefined;
  if (format.type === 'json_object') return `Respond with a single valid JSON object. ${ONLY_JSON}`;
  const { name, description, schema } = format.json_schema;
  const about = description ? ` (${description})` : '';
  if (!schema) return `Respond with a single valid JSON object named "${name}"${about}. ${ONLY_JSON}`;
  return [`Respond with a single valid JSON object that conforms to the JSON Schema "${name}"${about} below. ${ONLY_JSON}`, JSON.stringify(schema)].join(
    '\n\n',
  );
}
