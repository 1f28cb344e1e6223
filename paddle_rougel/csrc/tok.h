/* Token ids shared by the reader (tokens.c) and the pure-C kernels. */
#ifndef PADDLE_ROUGEL_TOK_H
#define PADDLE_ROUGEL_TOK_H

#include <stdint.h>

/* A token id: a code point (every text a str) or an interned id.  Equal ids
 * mean equal tokens; a token unequal to itself gets an id of its own. */
typedef uint32_t tok_t;

/* Interned ids stay below this (the kernels' hash maps never see more). */
#define TOK_ID_LIMIT 0xFFFFFFF0u

#endif
