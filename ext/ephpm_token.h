/* Lock tokens: 128 random bits from the kernel's CSPRNG, as hex. */
#ifndef EPHPM_TOKEN_H
#define EPHPM_TOKEN_H

#include <stdbool.h>

/* 128 random bits as 32 hex chars. */
#define EPHPM_TOKEN_LEN 32

/* Fills token (EPHPM_TOKEN_LEN + 1 bytes); false with an exception pending
 * when the CSPRNG fails. */
bool ephpm_new_token(char *token);

/* Once, at MINIT: a forked child drops the random bytes its parent had not
 * used yet (pthread_atfork), so no two processes ever make one token. */
void ephpm_token_init(void);

#endif
