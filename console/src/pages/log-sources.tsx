import { linkOf, type Source } from '../sources';

/** Where a source was found: the web, or the Space's files (masked like the rest at privacy level 2). */
const KINDS = new Set(['web', 'space']);

/**
 * The sources the request's search plugins found, as the API shows them: at privacy level 2 their titles,
 * addresses and snippets are `[masked]`, and nothing is a link.
 */
export function Sources({ sources }: { sources: Source[] }) {
  if (sources.length === 0) return null;
  return (
    <>
      <h2>Search sources</h2>
      <ol class="sources" data-sources>
        {sources.map((source) => {
          const link = linkOf(source);
          const title = source.title || source.fileName || source.url || '—';
          return (
            <li key={source.index} value={source.index} data-source={source.index}>
              {link ? (
                <a href={link} target="_blank" rel="noopener noreferrer">
                  {title}
                </a>
              ) : (
                <strong>{title}</strong>
              )}{' '}
              {KINDS.has(source.source) && <span class="badge">{source.source}</span>}
              {link && (
                <div>
                  <small>{link}</small>
                </div>
              )}
              {source.snippet && <p>{source.snippet}</p>}
            </li>
          );
        })}
      </ol>
    </>
  );
}
