import type { ChatChoice } from '../domain/chat';
import type { Annotation, ResultChoice } from '../domain/completion';
import type { SearchResultItem } from '../plugins/types';

/** Source markers as the model writes them: `[3]`, or several at once, `[1, 4]`. */
const MARKER = /\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]/g;

function annotationFor(item: SearchResultItem, span: { start: number; end: number }): Annotation | null {
  if (item.source === 'web' && item.url) {
    return { type: 'url_citation', url_citation: { start_index: span.start, end_index: span.end, url: item.url, title: item.title } };
  }
  if (item.source === 'space' && item.file_id) {
    return {
      type: 'file_citation',
      file_citation: { start_index: span.start, end_index: span.end, file_id: item.file_id, filename: item.file_name ?? '', index: item.index },
    };
  }
  return null;
}

/** The answer's source markers mapped to the search results they cite. */
export function annotationsOf(content: string, items: SearchResultItem[], { spaceSources }: { spaceSources: boolean }): Annotation[] {
  const byIndex = new Map(items.filter((item) => spaceSources || item.source === 'web').map((item) => [item.index, item]));
  const annotations: Annotation[] = [];
  for (const match of content.matchAll(MARKER)) {
    const span = { start: match.index, end: match.index + match[0].length };
    for (const n of (match[1] ?? '').split(',')) {
      const item = byIndex.get(Number(n.trim()));
      const annotation = item && annotationFor(item, span);
      if (annotation) annotations.push(annotation);
    }
  }
  return annotations;
}

/**
 * The answer's choices with OpenAI-style annotations: web sources always (as OpenAI's and OpenRouter's
 * web search do), Space files with the `citations` flag.
 */
export function annotated(choices: ChatChoice[], items: SearchResultItem[], { citations }: { citations: boolean }): ResultChoice[] {
  if (items.length === 0) return choices;
  return choices.map((choice) => {
    const annotations = annotationsOf(choice.message.content ?? '', items, { spaceSources: citations });
    return annotations.length > 0 ? { ...choice, message: { ...choice.message, annotations } } : choice;
  });
}
