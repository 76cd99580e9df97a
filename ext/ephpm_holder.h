/* What Ephpm\Lock and the lease holders (Ephpm\ReadWriteLock,
 * Ephpm\Semaphore) share: a name and a token, whether the hold was given
 * back, the request's list of holds not given back yet, and the rules for
 * giving back one PHP is done with (destructor, fatal error, end of the
 * request). Each embeds an ephpm_holder before its zend_object. */
#ifndef EPHPM_HOLDER_H
#define EPHPM_HOLDER_H

#include "php.h"
#include "ephpm_kv_ops.h"

typedef struct ephpm_holder ephpm_holder;

/* How one kind of holder gives its hold back. */
typedef struct {
	/* The store call: 1 given back, 0 no longer ours, -1 store error. */
	int (*give_back)(ephpm_holder *h, const ephpm_kv_ops *ops, ephpm_kv_error *err);
	/* Called once the holder leaves its list (NULL: nothing to do). */
	void (*untracked)(ephpm_holder *h);
	/* What warnings call it ("lock"); NULL: its class's name. */
	const char *noun;
} ephpm_holder_kind;

struct ephpm_holder {
	const ephpm_holder_kind *kind;
	int64_t ttl_ns; /* the acquire TTL, refresh()'s default */
	bool released;  /* given back (or abandoned): no op touches the store */
	bool tracked;   /* in *list */
	/* The name and token every op uses: the readonly properties show
	 * them, but ArrayObject, ArrayIterator and array_walk() can still
	 * replace or unset a property (to any type), so they are never read. */
	zend_string *name, *token;
	ephpm_holder **list, *prev, *next;
	zend_object *obj; /* the object it is part of, for the class name */
};

/* A new holder, released until ephpm_holder_hold(). */
void ephpm_holder_init(ephpm_holder *h, const ephpm_holder_kind *kind, zend_object *obj);
/* Holds name with token (both copied) for ttl_ns, tracked in *list. */
void ephpm_holder_hold(ephpm_holder *h, zend_string *name, const char *token, size_t token_len, int64_t ttl_ns,
	ephpm_holder **list);
/* Takes h off its list. */
void ephpm_holder_untrack(ephpm_holder *h);
/* Gives the hold back: 1, 0 no longer ours (or given back already), -1
 * store error (still held, still tracked). */
int ephpm_holder_release(ephpm_holder *h, const ephpm_kv_ops *ops, ephpm_kv_error *err);
/* Gives up a hold PHP is done with (destructor, after a fatal error, the
 * end of the request): one attempt, a warning when it fails, none once
 * the store stopped answering at the end of a request. Never loads the
 * library: without it this process forked after the hold was taken, and
 * the hold is the parent's. */
void ephpm_holder_release_unused(ephpm_holder *h, const char *when);
/* Gives the hold up without a store call: its TTL ends it. */
void ephpm_holder_abandon(ephpm_holder *h);
/* The object's free handler's part: a hold still tracked goes as at the
 * end of the request; the strings are freed. */
void ephpm_holder_free(ephpm_holder *h);
/* release()'s body after its argument check: false when given back
 * already, else the store call through get_ops()'s table (NULL: an
 * exception is pending), its result, or a KvException on a store error. */
void ephpm_holder_release_method(ephpm_holder *h, const ephpm_kv_ops *(*get_ops)(void), zval *return_value);
/* Every hold still in *list, as at the end of the request (RSHUTDOWN). */
void ephpm_holder_release_all(ephpm_holder **list);

#endif
