import type { PluginInput } from '../types';

/** One file the request names, by kind, with the request field it came from (for errors). */
export type AudioRef =
  { kind: 'url'; url: URL; param: string } | { kind: 'data'; ref: string; param: string } | { kind: 'space-file'; fileId: string; param: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A file reference as the kind it is; null for a string that is none of URL, data URL or Space file id. */
export function refOf(ref: string, param: string): AudioRef | null {
  const text = ref.trim();
  if (/^data:/i.test(text)) return { kind: 'data', ref: text, param };
  if (UUID.test(text)) return { kind: 'space-file', fileId: text.toLowerCase(), param };
  if (!/^https?:\/\//i.test(text)) return null;
  try {
    return { kind: 'url', url: new URL(text), param };
  } catch {
    return null;
  }
}

/** What the request names: the files to read, fields that are no file reference, and URLs the model named on its own. */
export interface AudioRefs {
  refs: AudioRef[];
  unreadable: string[];
  /** A URL from the model's tool call that the request does not hold: never fetched. */
  foreign: string[];
}

/**
 * The files to transcribe. Called as a tool with a `file` argument, the model chose one: that one
 * (named by its place in `files` when it is there). A URL it chose must be one of the request's
 * files: the model's arguments may come from injected text (a web page, a file), and fetching a URL
 * it made up would let that text have the service call any address, with data in the query string.
 * Otherwise every file of the request; the ones that are not audio are ignored later, and strings
 * that are no file reference are reported back.
 */
export function audioRefs(input: PluginInput, chosen: string | undefined): AudioRefs {
  if (chosen !== undefined) {
    const index = input.files.indexOf(chosen);
    const param = index >= 0 ? `files[${index}]` : 'file';
    const ref = refOf(chosen, param);
    if (ref?.kind === 'url' && index < 0) return { refs: [], unreadable: [], foreign: [param] };
    return ref ? { refs: [ref], unreadable: [], foreign: [] } : { refs: [], unreadable: [param], foreign: [] };
  }
  const refs: AudioRef[] = [];
  const unreadable: string[] = [];
  input.files.forEach((file, index) => {
    const ref = refOf(file, `files[${index}]`);
    if (ref) refs.push(ref);
    else unreadable.push(`files[${index}]`);
  });
  return { refs, unreadable, foreign: [] };
}
