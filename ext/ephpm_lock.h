#ifndef EPHPM_LOCK_H
#define EPHPM_LOCK_H

#include "php.h"

extern zend_class_entry *ephpm_lock_ce;
extern zend_class_entry *ephpm_lock_timeout_exception_ce;

/* Wires the object handlers into the registered Ephpm\\Lock class. */
void ephpm_lock_init_class(zend_class_entry *ce);

/* Releases (compare-and-delete) every lock this request acquired and still
 * holds; for RSHUTDOWN, which runs even when destructors did not. */
void ephpm_lock_release_held(void);

#endif
