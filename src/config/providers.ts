/** Providers whose key and base URL come from `<PROVIDER>_API_KEY` / `<PROVIDER>_BASE_URL`. */
export const PROVIDER_IDS = [
  'openai',
  'anthropic',
  'gemini',
  'mistral',
  'groq',
  'together',
  'deepseek',
  'fireworks',
  'xai',
  'openrouter',
  'ollama',
  'vllm',
] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

/** Where each provider answers unless `<PROVIDER>_BASE_URL` says otherwise. */
export const DEFAULT_BASE_URLS: Record<ProviderId, string> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
  gemini: 'https://generativelanguage.googleapis.com',
  mistral: 'https://api.mistral.ai/v1',
  groq: 'https://api.groq.com/openai/v1',
  together: 'https://api.together.xyz/v1',
  deepseek: 'https://api.deepseek.com/v1',
  fireworks: 'https://api.fireworks.ai/inference/v1',
  xai: 'https://api.x.ai/v1',
  openrouter: 'https://openrouter.ai/api/v1',
  ollama: 'http://127.0.0.1:11434/v1',
  vllm: 'http://127.0.0.1:8000/v1',
};
