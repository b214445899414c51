/** A value JSON can carry. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
