#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <pthread.h>

#include "php.h"
#include "ext/random/php_random.h"

#include "ephpm_token.h"

/* The kernel's CSPRNG (php_random_bytes: getrandom()) is asked for a batch
 * of tokens at a time, not one: a getrandom() call cost 400 ns here on a
 * VM, more than the rest of a lock pair, for every Ephpm\Lock, lease,
 * leadership, queue delivery and session lock. Each token's bytes are
 * used once and wiped as they are; what is left when the process forks is
 * dropped in the child (see ephpm_token_init). Per thread under ZTS. */
#define POOL_TOKENS 32
#define RAW_LEN (EPHPM_TOKEN_LEN / 2)

ZEND_TLS struct {
	unsigned char bytes[POOL_TOKENS * RAW_LEN];
	size_t left; /* unused bytes, at the end of bytes */
} pool;

static void drop_pool(void)
{
	ZEND_SECURE_ZERO(pool.bytes, sizeof pool.bytes);
	pool.left = 0;
}

void ephpm_token_init(void)
{
	pthread_atfork(NULL, NULL, drop_pool);
}

bool ephpm_new_token(char *token)
{
	static const char hex[] = "0123456789abcdef";
	if (pool.left < RAW_LEN) {
		if (php_random_bytes_throw(pool.bytes, sizeof pool.bytes) == FAILURE) {
			drop_pool();
			return false;
		}
		pool.left = sizeof pool.bytes;
	}
	unsigned char *raw = pool.bytes + sizeof pool.bytes - pool.left;
	for (size_t i = 0; i < RAW_LEN; i++) {
		token[2 * i] = hex[raw[i] >> 4];
		token[2 * i + 1] = hex[raw[i] & 0xf];
	}
	token[EPHPM_TOKEN_LEN] = '\0';
	ZEND_SECURE_ZERO(raw, RAW_LEN);
	pool.left -= RAW_LEN;
	return true;
}
