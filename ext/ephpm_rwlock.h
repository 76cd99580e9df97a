#ifndef EPHPM_RWLOCK_H
#define EPHPM_RWLOCK_H

#include "php.h"

extern zend_class_entry *ephpm_rwlock_ce;

/* Wires the holder's handlers into the registered Ephpm\ReadWriteLock. */
void ephpm_rwlock_init_class(zend_class_entry *ce);

#endif
