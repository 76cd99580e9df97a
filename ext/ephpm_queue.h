#ifndef EPHPM_QUEUE_H
#define EPHPM_QUEUE_H

#include "php.h"

extern zend_class_entry *ephpm_queue_ce;
extern zend_class_entry *ephpm_job_ce;

/* Wires the object handlers into the registered Ephpm\Queue and
 * Ephpm\Job classes. */
void ephpm_queue_init_classes(zend_class_entry *queue_ce, zend_class_entry *job_ce);

#endif
