import { useEffect, useState } from 'preact/hooks';

/** Pages are addressed by the URL's fragment (`#/logs/<id>`), so the server serves one index.html. */
export interface Location {
  page: string;
  id: string | null;
}

function parse(hash: string): Location {
  const [page = 'spaces', id = null] = hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  return { page, id };
}

export function useLocation(): Location {
  const [location, setLocation] = useState(() => parse(window.location.hash));
  useEffect(() => {
    const update = () => setLocation(parse(window.location.hash));
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return location;
}

export const href = (page: string, id?: string): string => (id ? `#/${page}/${encodeURIComponent(id)}` : `#/${page}`);
