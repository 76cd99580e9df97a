#ifndef EPHPM_SEMAPHORE_H
#define EPHPM_SEMAPHORE_H

#include "php.h"

extern zend_class_entry *ephpm_semaphore_ce;

/* Wires the holder's handlers into the registered Ephpm\Semaphore. */
void ephpm_semaphore_init_class(zend_class_entry *ce);

#endif
