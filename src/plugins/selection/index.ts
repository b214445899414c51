export { lastUserText } from './last-user-text';
export { selectPlugins } from './select-plugins';
export type { Selection, SelectionInput, SelectionOptions } from './types';
