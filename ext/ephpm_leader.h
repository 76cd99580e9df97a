#ifndef EPHPM_LEADER_H
#define EPHPM_LEADER_H

#include "php.h"

extern zend_class_entry *ephpm_leader_ce;

/* Wires the object handlers into the registered Ephpm\Leader class. */
void ephpm_leader_init_class(zend_class_entry *ce);

#endif
