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
    const update = () => {
      const next = parse(window.location.hash);
      setLocation((now) => (now.page === next.page && now.id === next.id ? now : next));
    };
    window.addEventListener('hashchange', update);
    // The fragment may have changed between the first render and this effect (which runs after the page is
    // painted), when nobody listened yet: read it again.
    update();
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return location;
}

export const href = (page: string, id?: string): string => (id ? `#/${page}/${encodeURIComponent(id)}` : `#/${page}`);
