/* The holder lifecycle Ephpm\Lock and the lease holders share (see
 * ephpm_holder.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"

#include "php_ephpm.h"
#include "ephpm_args.h"
#include "ephpm_escape.h"
#include "ephpm_holder.h"
#include "ephpm_library.h"

void ephpm_holder_init(ephpm_holder *h, const ephpm_holder_kind *kind, zend_object *obj)
{
	memset(h, 0, sizeof(*h));
	h->kind = kind;
	h->obj = obj;
	h->released = true;
}

void ephpm_holder_hold(ephpm_holder *h, zend_string *name, const char *token, size_t token_len, int64_t ttl_ns,
	ephpm_holder **list)
{
	h->name = zend_string_copy(name);
	h->token = zend_string_init(token, token_len, 0);
	h->ttl_ns = ttl_ns;
	h->released = false;
	h->tracked = true;
	h->list = list;
	h->prev = NULL;
	h->next = *list;
	if (h->next) {
		h->next->prev = h;
	}
	*list = h;
}

void ephpm_holder_untrack(ephpm_holder *h)
{
	if (h->kind->untracked) {
		h->kind->untracked(h);
	}
	if (!h->tracked) {
		return;
	}
	if (h->prev) {
		h->prev->next = h->next;
	} else {
		*h->list = h->next;
	}
	if (h->next) {
		h->next->prev = h->prev;
	}
	h->prev = h->next = NULL;
	h->tracked = false;
}

int ephpm_holder_release(ephpm_holder *h, const ephpm_kv_ops *ops, ephpm_kv_error *err)
{
	if (h->released) {
		return 0;
	}
	int rc = h->kind->give_back(h, ops, err);
	if (rc >= 0) {
		h->released = true;
		ephpm_holder_untrack(h);
	}
	return rc;
}

void ephpm_holder_release_unused(ephpm_holder *h, const char *when)
{
	const ephpm_kv_ops *ops = ephpm_library_ops;
	if (!h->released && ops) {
		bool ending = EG(flags) & EG_FLAGS_IN_SHUTDOWN;
		ephpm_kv_error err;
		if (ending && EPHPM_G(end_unreleased)) {
			EPHPM_G(end_unreleased)++;
		} else if (ephpm_holder_release(h, ops, &err) < 0) {
			zend_string *shown = ephpm_escape(STR_ARGS(h->name));
			php_error_docref(NULL, E_WARNING, "Could not release %s \"%s\" %s: %s",
				h->kind->noun ? h->kind->noun : ZSTR_VAL(h->obj->ce->name), ZSTR_VAL(shown), when, err.message);
			zend_string_release(shown);
			if (ending && err.code == EPHPM_KV_E_UNAVAILABLE) {
				EPHPM_G(end_unreleased) = 1;
			}
		}
	}
	ephpm_holder_untrack(h);
}

void ephpm_holder_abandon(ephpm_holder *h)
{
	h->released = true;
	ephpm_holder_untrack(h);
}

void ephpm_holder_free(ephpm_holder *h)
{
	if (h->tracked) {
		ephpm_holder_release_unused(h, "at the end of the request");
	}
	if (h->name) {
		zend_string_release(h->name);
		zend_string_release(h->token);
		h->name = h->token = NULL;
	}
}

void ephpm_holder_release_method(ephpm_holder *h, const ephpm_kv_ops *(*get_ops)(void), zval *return_value)
{
	if (h->released) {
		RETURN_FALSE;
	}
	const ephpm_kv_ops *ops = get_ops();
	if (!ops) {
		RETURN_THROWS();
	}
	ephpm_kv_error err;
	int rc = ephpm_holder_release(h, ops, &err);
	if (rc < 0) {
		ephpm_throw_store_error(&err);
		RETURN_THROWS();
	}
	RETURN_BOOL(rc);
}

void ephpm_holder_release_all(ephpm_holder **list)
{
	while (*list) {
		ephpm_holder_release_unused(*list, "at the end of the request");
	}
}
