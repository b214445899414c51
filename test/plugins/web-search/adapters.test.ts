import { braveAdapter } from '../../../src/plugins/web-search/backends/brave';
import { exaAdapter } from '../../../src/plugins/web-search/backends/exa';
import { searxngAdapter } from '../../../src/plugins/web-search/backends/searxng';
import { tavilyAdapter } from '../../../src/plugins/web-search/backends/tavily';
import type { WebSearchAdapter } from '../../../src/plugins/web-search/types';
import { UpstreamError } from '../../../src/errors/upstream-error';

const ask = { query: 'rust async runtimes', count: 3, language: 'en-US' };

function invalidOf(adapter: WebSearchAdapter, raw: string): UpstreamError {
  try {
    adapter.parseResponse(JSON.parse(raw));
  } catch (err) {
    if (err instanceof UpstreamError) return err;
    throw err;
  }
  throw new Error('expected the parser to refuse the body');
}

describe('searxng adapter', () => {
  test('asks GET /search with format=json and the language, below a base URL with a path', () => {
    const request = searxngAdapter.buildRequest(ask, { baseUrl: 'http://searxng:8080/sx/', apiKey: null });
    const url = new URL(request.url);
    expect(request.method).toBe('GET');
    expect(`${url.origin}${url.pathname}`).toBe('http://searxng:8080/sx/search');
    expect(Object.fromEntries(url.searchParams)).toEqual({ q: 'rust async runtimes', format: 'json', pageno: '1', language: 'en-US' });
  });

  test('reads results[].url/title/content/publishedDate/score and drops items without a URL', () => {
    const raw = `{"query":"rust async runtimes","number_of_results":0,"results":[
      {"url":"https://tokio.rs/","title":"Tokio - An asynchronous Rust runtime","content":"Tokio is an event-driven, non-blocking I/O platform &amp; runtime.","engine":"duckduckgo","parsed_url":["https","tokio.rs","/","","",""],"template":"default.html","engines":["duckduckgo","brave"],"positions":[1,2],"publishedDate":null,"score":4.0,"category":"general"},
      {"title":"No URL here","content":"an infobox-like entry"},
      {"url":"https://async.rs/","title":"async-std","content":"Async version of the Rust standard library","publishedDate":"2026-10-01T00:00:00","score":1.5,"category":"general"}],
      "answers":[],"corrections":[],"infoboxes":[],"suggestions":[],"unresponsive_engines":[["google","timeout"]]}`;
    expect(searxngAdapter.parseResponse(JSON.parse(raw))).toEqual([
      {
        title: 'Tokio - An asynchronous Rust runtime',
        url: 'https://tokio.rs/',
        snippet: 'Tokio is an event-driven, non-blocking I/O platform & runtime.',
        score: 4,
        publishedAt: undefined,
      },
      { title: 'async-std', url: 'https://async.rs/', snippet: 'Async version of the Rust standard library', score: 1.5, publishedAt: '2026-10-01T00:00:00' },
    ]);
  });

  test('a body without results is not SearXNG', () => {
    expect(invalidOf(searxngAdapter, '{"error":"oops"}').kind).toBe('invalid_response');
  });
});

describe('brave adapter', () => {
  test('asks GET /res/v1/web/search with the key in X-Subscription-Token, the count and a bare language', () => {
    const request = braveAdapter.buildRequest(ask, { baseUrl: 'https://api.search.brave.com', apiKey: 'BSA-key' });
    const url = new URL(request.url);
    expect(`${url.origin}${url.pathname}`).toBe('https://api.search.brave.com/res/v1/web/search');
    expect(Object.fromEntries(url.searchParams)).toEqual({ q: 'rust async runtimes', count: '3', text_decorations: 'false', search_lang: 'en' });
    expect(request.headers).toMatchObject({ 'x-subscription-token': 'BSA-key', accept: 'application/json' });
  });

  test('reads web.results[], stripping markup, with page_age before age and the reciprocal rank as score', () => {
    const raw = `{"type":"search","query":{"original":"rust async runtimes"},"mixed":{"type":"mixed","main":[]},
      "web":{"type":"search","family_friendly":true,"results":[
        {"type":"search_result","title":"Tokio","url":"https://tokio.rs/","description":"A runtime for writing <strong>async</strong> Rust","age":"2 days ago","page_age":"2026-11-21T10:00:00","language":"en"},
        {"type":"search_result","title":"smol","url":"https://github.com/smol-rs/smol","description":"A small and fast <strong>async</strong> runtime","age":"3 weeks ago"}]}}`;
    expect(braveAdapter.parseResponse(JSON.parse(raw))).toEqual([
      { title: 'Tokio', url: 'https://tokio.rs/', snippet: 'A runtime for writing async Rust', score: 1, publishedAt: '2026-11-21T10:00:00' },
      { title: 'smol', url: 'https://github.com/smol-rs/smol', snippet: 'A small and fast async runtime', score: 0.5, publishedAt: '3 weeks ago' },
    ]);
  });

  test('a search without web results is empty, and an error body is not a search', () => {
    expect(braveAdapter.parseResponse(JSON.parse('{"type":"search","query":{"original":"zzqx"},"mixed":{"type":"mixed","main":[]}}'))).toEqual([]);
    const raw = '{"type":"ErrorResponse","error":{"id":"x","status":422,"code":"VALIDATION","detail":"bad"},"time":1}';
    expect(invalidOf(braveAdapter, raw).kind).toBe('invalid_response');
  });
});

describe('tavily adapter', () => {
  test('asks POST /search with a Bearer key and a basic-depth body', () => {
    const request = tavilyAdapter.buildRequest(ask, { baseUrl: 'https://api.tavily.com', apiKey: 'tvly-key' });
    expect(request).toMatchObject({ method: 'POST', url: 'https://api.tavily.com/search' });
    expect(request.headers).toMatchObject({ authorization: 'Bearer tvly-key', 'content-type': 'application/json' });
    expect(JSON.parse(String(request.body))).toEqual({
      query: 'rust async runtimes',
      max_results: 3,
      search_depth: 'basic',
      include_answer: false,
      include_images: false,
      include_raw_content: false,
    });
  });

  test('reads results[].title/url/content/score/published_date', () => {
    const raw = `{"query":"rust async runtimes","follow_up_questions":null,"answer":null,"images":[],"results":[
      {"title":"Tokio","url":"https://tokio.rs/","content":"Tokio is an asynchronous runtime for Rust.","score":0.81,"raw_content":null},
      {"title":"Async Rust in 2026","url":"https://blog.example/async","content":"News about async Rust.","score":0.6,"raw_content":null,"published_date":"Mon, 16 Nov 2026 09:00:00 GMT"}],
      "response_time":1.2}`;
    expect(tavilyAdapter.parseResponse(JSON.parse(raw))).toEqual([
      { title: 'Tokio', url: 'https://tokio.rs/', snippet: 'Tokio is an asynchronous runtime for Rust.', score: 0.81, publishedAt: undefined },
      {
        title: 'Async Rust in 2026',
        url: 'https://blog.example/async',
        snippet: 'News about async Rust.',
        score: 0.6,
        publishedAt: 'Mon, 16 Nov 2026 09:00:00 GMT',
      },
    ]);
  });

  test('an error body is not a search', () => {
    expect(invalidOf(tavilyAdapter, '{"detail":{"error":"Unauthorized"}}').kind).toBe('invalid_response');
  });
});

describe('exa adapter', () => {
  test('asks POST /search with x-api-key, numResults and the text contents', () => {
    const request = exaAdapter.buildRequest(ask, { baseUrl: 'https://api.exa.ai', apiKey: 'exa-key' });
    expect(request).toMatchObject({ method: 'POST', url: 'https://api.exa.ai/search' });
    expect(request.headers).toMatchObject({ 'x-api-key': 'exa-key', 'content-type': 'application/json' });
    expect(JSON.parse(String(request.body))).toEqual({
      query: 'rust async runtimes',
      numResults: 3,
      type: 'auto',
      contents: { text: { maxCharacters: 1000 } },
    });
  });

  test('reads results[], preferring highlights to the text as the snippet', () => {
    const raw = `{"requestId":"b5947044c4b78efa9552a7c89b306d95","resolvedSearchType":"neural","results":[
      {"id":"https://tokio.rs/","title":"Tokio","url":"https://tokio.rs/","publishedDate":"2026-01-05T00:00:00.000Z","author":null,"score":0.19,"text":"Tokio\\n\\nBuild reliable network applications.","highlights":["Build reliable network applications without compromising speed."],"highlightScores":[0.4]},
      {"id":"https://docs.rs/smol","title":null,"url":"https://docs.rs/smol","publishedDate":null,"author":"stjepang","text":"A small and fast async runtime."}],
      "costDollars":{"total":0.007}}`;
    expect(exaAdapter.parseResponse(JSON.parse(raw))).toEqual([
      {
        title: 'Tokio',
        url: 'https://tokio.rs/',
        snippet: 'Build reliable network applications without compromising speed.',
        score: 0.19,
        publishedAt: '2026-01-05T00:00:00.000Z',
      },
      { title: 'https://docs.rs/smol', url: 'https://docs.rs/smol', snippet: 'A small and fast async runtime.', score: 0, publishedAt: undefined },
    ]);
  });

  test('an error body is not a search', () => {
    expect(invalidOf(exaAdapter, '{"requestId":"x","error":"Invalid API key","tag":"INVALID_API_KEY"}').kind).toBe('invalid_response');
  });
});

describe('every adapter', () => {
  test.each([
    [
      'searxng',
      searxngAdapter,
      (url: string) => ({
        results: [
          { url, title: 't', content: 'c' },
          { url: 'https://ok.example/', title: 'ok' },
        ],
      }),
    ],
    [
      'brave',
      braveAdapter,
      (url: string) => ({
        type: 'search',
        web: {
          results: [
            { url, title: 't' },
            { url: 'https://ok.example/', title: 'ok' },
          ],
        },
      }),
    ],
  ] as const)('%s drops results whose URL is not http(s) (a javascript: link would reach clients as a citation)', (_name, adapter, body) => {
    for (const url of ['javascript:alert(document.cookie)', 'data:text/html,<script>x</script>', 'file:///etc/passwd', 'not a url']) {
      expect(adapter.parseResponse(body(url)).map((result) => result.url)).toEqual(['https://ok.example/']);
    }
  });
});

describe('a result list read up to max', () => {
  test.each([
    ['searxng', searxngAdapter, (items: object[]) => ({ results: items })],
    ['brave', braveAdapter, (items: object[]) => ({ type: 'search', web: { results: items } })],
  ] as const)('%s stops after max distinct URLs, skipping invalid items and repeats as the whole list would', (_name, adapter, body) => {
    const items = [
      { url: 'https://a.example/', title: 'a' },
      { url: 'javascript:alert(1)', title: 'bad' },
      { url: 'https://a.example/', title: 'a again' },
      { url: 'https://b.example/', title: 'b' },
      { url: 'https://c.example/', title: 'c' },
    ];
    const whole = adapter.parseResponse(body(items));
    const firstTwo = adapter.parseResponse(body(items), 2);
    expect(firstTwo.map((result) => result.title)).toEqual(['a', 'a again', 'b']);
    expect(firstTwo).toEqual(whole.slice(0, 3));
  });
});
