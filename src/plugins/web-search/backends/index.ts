import type { WebSearchBackend } from '../../../config/plugins/web-search';
import type { WebSearchAdapter } from '../types';
import { braveAdapter } from './brave';
import { exaAdapter } from './exa';
import { searxngAdapter } from './searxng';
import { tavilyAdapter } from './tavily';

/** Each backend's wire format; a new backend is one adapter and one entry. */
export const WEB_SEARCH_ADAPTERS: Record<WebSearchBackend, WebSearchAdapter> = {
  searxng: searxngAdapter,
  brave: braveAdapter,
  tavily: tavilyAdapter,
  exa: exaAdapter,
};
