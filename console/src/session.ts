/**
 * The API key lives in this tab's sessionStorage only: gone when the tab closes, never in a URL,
 * a cookie or localStorage, and sent only as a Bearer header to this origin.
 */
const KEY = 'switchyard.api_key';

export const session = {
  key: (): string | null => sessionStorage.getItem(KEY),
  signIn: (apiKey: string): void => sessionStorage.setItem(KEY, apiKey),
  signOut: (): void => sessionStorage.removeItem(KEY),
};
