#ifndef EPHPM_LOCKSET_H
#define EPHPM_LOCKSET_H

#include "php.h"

extern zend_class_entry *ephpm_lockset_ce;

/* Wires the object handlers into the registered Ephpm\\LockSet class. */
void ephpm_lockset_init_class(zend_class_entry *ce);

#endif
