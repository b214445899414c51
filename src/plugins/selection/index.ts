export { lastUserText } from '../../domain/chat';
export { selectPlugins } from './select-plugins';
export type { Selection, SelectionInput, SelectionOptions } from './types';
