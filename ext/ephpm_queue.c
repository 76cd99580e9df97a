/* Ephpm\Queue and Ephpm\Job: a reliable queue in the store, at least once.
 * A pop is one delivery, made with a token of its own: the job is
 * invisible to other pops for the queue's visibility, and only that
 * delivery's token acknowledges, releases or extends it. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>

#include "php.h"

#include "ephpm_acquire.h"
#include "ephpm_args.h"
#include "ephpm_library.h"
#include "ephpm_queue.h"

zend_class_entry *ephpm_queue_ce;
zend_class_entry *ephpm_job_ce;
static zend_object_handlers queue_handlers, job_handlers;

/* A job's payload is the key name + ":job:" + id (the ops header), and the
 * store refuses a name whose keys would outgrow a key with a 19-digit id
 * (kv.CheckQueue): a ValueError here, as for any key. */
#define QUEUE_MAX_NAME (EPHPM_KV_MAX_KEY_SIZE - (int)(sizeof(":job:") - 1) - 19)

/* The store takes a wait of at most the longest TTL (kv.MaxTTL); a longer
 * one (to the clock: forever, where ephpm_wait_arg saturates) is that. */
#define MAX_WAIT_NS (EPHPM_KV_MAX_TTL_SECONDS * EPHPM_NS_PER_SEC)

/* Property slots, in the stub's declaration order. */
#define QUEUE_PROP_NAME 0
#define QUEUE_PROP_VISIBILITY 1
#define QUEUE_PROP_MAX_ATTEMPTS 2
#define JOB_PROP_QUEUE 0
#define JOB_PROP_ID 1
#define JOB_PROP_PAYLOAD 2
#define JOB_PROP_ATTEMPTS 3

/* What every op uses, kept here: the readonly properties show it, but
 * ArrayObject, ArrayIterator and array_walk() can still replace them, so
 * they are never read. */
typedef struct {
	zend_string *name; /* NULL until the constructor ran */
	int64_t visibility_ns;
	int64_t max_attempts;
	zend_object std;
} ephpm_queue;

typedef struct {
	zend_string *queue; /* the queue's name */
	int64_t id;
	int64_t visibility_ns; /* the queue's, for touch() */
	char token[EPHPM_TOKEN_LEN + 1]; /* this delivery's */
	zend_object std;
} ephpm_job;

static zend_always_inline ephpm_queue *queue_from(zend_object *obj)
{
	return (ephpm_queue *)((char *)obj - XtOffsetOf(ephpm_queue, std));
}

static zend_always_inline ephpm_job *job_from(zend_object *obj)
{
	return (ephpm_job *)((char *)obj - XtOffsetOf(ephpm_job, std));
}

static zend_object *queue_create(zend_class_entry *ce)
{
	ephpm_queue *q = zend_object_alloc(sizeof(ephpm_queue), ce);
	zend_object_std_init(&q->std, ce);
	object_properties_init(&q->std, ce);
	q->std.handlers = &queue_handlers;
	return &q->std;
}

static void queue_free(zend_object *obj)
{
	ephpm_queue *q = queue_from(obj);
	if (q->name) {
		zend_string_release(q->name);
	}
	zend_object_std_dtor(obj);
}

static zend_object *job_create(zend_class_entry *ce)
{
	ephpm_job *job = zend_object_alloc(sizeof(ephpm_job), ce);
	zend_object_std_init(&job->std, ce);
	object_properties_init(&job->std, ce);
	job->std.handlers = &job_handlers;
	return &job->std;
}

static void job_free(zend_object *obj)
{
	ephpm_job *job = job_from(obj);
	if (job->queue) {
		zend_string_release(job->queue);
	}
	zend_object_std_dtor(obj);
}

void ephpm_queue_init_classes(zend_class_entry *queue_ce, zend_class_entry *job_ce)
{
	ephpm_queue_ce = queue_ce;
	queue_ce->create_object = queue_create;
	memcpy(&queue_handlers, &std_object_handlers, sizeof(zend_object_handlers));
	queue_handlers.offset = XtOffsetOf(ephpm_queue, std);
	queue_handlers.free_obj = queue_free;
	queue_handlers.clone_obj = NULL;

	ephpm_job_ce = job_ce;
	job_ce->create_object = job_create;
	memcpy(&job_handlers, &std_object_handlers, sizeof(zend_object_handlers));
	job_handlers.offset = XtOffsetOf(ephpm_job, std);
	job_handlers.free_obj = job_free;
	job_handlers.clone_obj = NULL;
}

/* The ops table, checked to have the queue ops; NULL with an exception
 * pending otherwise. */
static const ephpm_kv_ops *queue_ops(void)
{
	const ephpm_kv_ops *ops = ephpm_ops();
	if (ops && !(EPHPM_OPS_HAS(ops, queue_push) && EPHPM_OPS_HAS(ops, queue_pop) && EPHPM_OPS_HAS(ops, queue_ack)
		&& EPHPM_OPS_HAS(ops, queue_release) && EPHPM_OPS_HAS(ops, queue_touch) && EPHPM_OPS_HAS(ops, queue_size)
		&& EPHPM_OPS_HAS(ops, queue_dead) && EPHPM_OPS_HAS(ops, queue_retry))) {
		ephpm_throw_missing_ops("queue");
		return NULL;
	}
	return ops;
}

/* The queue this method was called on and the ops table; NULL with an
 * exception pending. */
static ephpm_queue *this_queue(zend_execute_data *execute_data, const ephpm_kv_ops **ops)
{
	ephpm_queue *q = queue_from(Z_OBJ_P(ZEND_THIS));
	if (!q->name) {
		zend_throw_error(NULL, "Ephpm\\Queue has not been constructed");
		return NULL;
	}
	*ops = queue_ops();
	return *ops ? q : NULL;
}

/* A delay: 0 (at once) to the longest TTL. */
static bool delay_arg(double delay, uint32_t arg_num, int64_t *ns)
{
	return ephpm_ttl_arg(delay, arg_num, true, ns);
}

ZEND_METHOD(Ephpm_Queue, __construct)
{
	zend_string *name;
	double visibility = 30;
	zend_long max_attempts = 5;
	int64_t visibility_ns;
	ZEND_PARSE_PARAMETERS_START(1, 3)
		Z_PARAM_STR(name)
		Z_PARAM_OPTIONAL
		Z_PARAM_DOUBLE(visibility)
		Z_PARAM_LONG(max_attempts)
	ZEND_PARSE_PARAMETERS_END();
	ephpm_queue *q = queue_from(Z_OBJ_P(ZEND_THIS));
	if (q->name) {
		/* as PHP says of a readonly property written twice */
		zend_throw_error(NULL, "Cannot modify readonly property Ephpm\\Queue::$name");
		RETURN_THROWS();
	}
	if (!ephpm_check_key(name, 1)) {
		RETURN_THROWS();
	}
	if (ZSTR_LEN(name) > QUEUE_MAX_NAME) {
		zend_argument_value_error(1, "must not be longer than %d bytes (its jobs' keys add \":job:\" and an id)",
			QUEUE_MAX_NAME);
		RETURN_THROWS();
	}
	if (!ephpm_ttl_arg(visibility, 2, false, &visibility_ns)) {
		RETURN_THROWS();
	}
	if (max_attempts < 1) {
		zend_argument_value_error(3, "must be greater than 0");
		RETURN_THROWS();
	}
	q->name = zend_string_copy(name);
	q->visibility_ns = visibility_ns;
	q->max_attempts = max_attempts;
	ZVAL_STR_COPY(OBJ_PROP_NUM(&q->std, QUEUE_PROP_NAME), name);
	ZVAL_DOUBLE(OBJ_PROP_NUM(&q->std, QUEUE_PROP_VISIBILITY), visibility);
	ZVAL_LONG(OBJ_PROP_NUM(&q->std, QUEUE_PROP_MAX_ATTEMPTS), max_attempts);
}

ZEND_METHOD(Ephpm_Queue, push)
{
	zend_string *payload;
	double delay = 0;
	int64_t delay_ns, id;
	const ephpm_kv_ops *ops;
	ZEND_PARSE_PARAMETERS_START(1, 2)
		Z_PARAM_STR(payload)
		Z_PARAM_OPTIONAL
		Z_PARAM_DOUBLE(delay)
	ZEND_PARSE_PARAMETERS_END();
	if (!delay_arg(delay, 2, &delay_ns)) {
		RETURN_THROWS();
	}
	ephpm_queue *q = this_queue(execute_data, &ops);
	if (!q) {
		RETURN_THROWS();
	}
	ephpm_kv_error err;
	if (ops->queue_push(STR_ARGS(q->name), STR_ARGS(payload), delay_ns, &id, &err) < 0) {
		ephpm_throw_store_error(&err);
		RETURN_THROWS();
	}
	RETURN_STR(zend_long_to_str(id));
}

ZEND_METHOD(Ephpm_Queue, pop)
{
	double wait = 0;
	int64_t wait_ns, id, attempts;
	const ephpm_kv_ops *ops;
	ZEND_PARSE_PARAMETERS_START(0, 1)
		Z_PARAM_OPTIONAL
		Z_PARAM_DOUBLE(wait)
	ZEND_PARSE_PARAMETERS_END();
	if (!ephpm_wait_arg(wait, 1, &wait_ns)) {
		RETURN_THROWS();
	}
	ephpm_queue *q = this_queue(execute_data, &ops);
	if (!q) {
		RETURN_THROWS();
	}
	char token[EPHPM_TOKEN_LEN + 1];
	if (!ephpm_new_token(token)) {
		RETURN_THROWS();
	}
	char *payload = NULL;
	size_t payload_len = 0;
	ephpm_kv_error err;
	int rc = ops->queue_pop(STR_ARGS(q->name), token, EPHPM_TOKEN_LEN, q->visibility_ns, q->max_attempts,
		MIN(wait_ns, MAX_WAIT_NS),
		&id, &attempts, &payload, &payload_len, &err);
	if (rc != 1) {
		free(payload);
		if (rc < 0) {
			ephpm_throw_store_error(&err);
			RETURN_THROWS();
		}
		RETURN_NULL();
	}
	zend_string *body = payload_len ? zend_string_init(payload, payload_len, 0) : ZSTR_EMPTY_ALLOC();
	free(payload);
	object_init_ex(return_value, ephpm_job_ce);
	ephpm_job *job = job_from(Z_OBJ_P(return_value));
	job->queue = zend_string_copy(q->name);
	job->id = id;
	job->visibility_ns = q->visibility_ns;
	memcpy(job->token, token, sizeof token);
	ZVAL_STR_COPY(OBJ_PROP_NUM(&job->std, JOB_PROP_QUEUE), q->name);
	ZVAL_STR(OBJ_PROP_NUM(&job->std, JOB_PROP_ID), zend_long_to_str(id));
	ZVAL_STR(OBJ_PROP_NUM(&job->std, JOB_PROP_PAYLOAD), body);
	ZVAL_LONG(OBJ_PROP_NUM(&job->std, JOB_PROP_ATTEMPTS), attempts);
}

ZEND_METHOD(Ephpm_Queue, size)
{
	const ephpm_kv_ops *ops;
	int64_t size;
	ZEND_PARSE_PARAMETERS_NONE();
	ephpm_queue *q = this_queue(execute_data, &ops);
	if (!q) {
		RETURN_THROWS();
	}
	ephpm_kv_error err;
	if (ops->queue_size(STR_ARGS(q->name), q->max_attempts, &size, &err) < 0) {
		ephpm_throw_store_error(&err);
		RETURN_THROWS();
	}
	RETURN_LONG(size);
}

/* The dead list's buffer, as queue_dead() packs it, into a list of
 * ['id' => string, 'payload' => string, 'attempts' => int]; false when
 * it does not parse (then out is left to the caller to free). */
static bool unpack_dead(const char *buf, size_t len, zval *out)
{
	size_t at = 0;
	while (at < len) {
		int64_t head[3]; /* id, attempts, payload length */
		if (len - at < sizeof head) {
			return false;
		}
		memcpy(head, buf + at, sizeof head);
		at += sizeof head;
		if (head[2] < 0 || (uint64_t)head[2] > len - at) {
			return false;
		}
		zval job;
		array_init_size(&job, 3);
		add_assoc_str(&job, "id", zend_long_to_str(head[0]));
		add_assoc_stringl(&job, "payload", buf + at, (size_t)head[2]);
		add_assoc_long(&job, "attempts", head[1]);
		add_next_index_zval(out, &job);
		at += (size_t)head[2];
	}
	return true;
}

ZEND_METHOD(Ephpm_Queue, dead)
{
	zend_long limit = 100;
	const ephpm_kv_ops *ops;
	ZEND_PARSE_PARAMETERS_START(0, 1)
		Z_PARAM_OPTIONAL
		Z_PARAM_LONG(limit)
	ZEND_PARSE_PARAMETERS_END();
	if (limit < 1) {
		zend_argument_value_error(1, "must be greater than 0");
		RETURN_THROWS();
	}
	ephpm_queue *q = this_queue(execute_data, &ops);
	if (!q) {
		RETURN_THROWS();
	}
	char *buf = NULL;
	size_t len = 0;
	ephpm_kv_error err;
	if (ops->queue_dead(STR_ARGS(q->name), q->max_attempts, limit, &buf, &len, &err) < 0) {
		free(buf);
		ephpm_throw_store_error(&err);
		RETURN_THROWS();
	}
	array_init(return_value);
	bool parsed = unpack_dead(buf, len, return_value);
	free(buf);
	if (!parsed) {
		zval_ptr_dtor(return_value);
		ZVAL_NULL(return_value);
		err.code = EPHPM_KV_E_INTERNAL;
		snprintf(err.message, sizeof err.message, "the dead list of %zu bytes does not parse", len);
		ephpm_throw_store_error(&err);
		RETURN_THROWS();
	}
}

/* A job id as push() returns it: a positive decimal integer, no sign, no
 * leading zero, no spaces, at most PHP_INT_MAX. */
static bool parse_job_id(const zend_string *s, int64_t *id)
{
	const char *p = ZSTR_VAL(s), *end = p + ZSTR_LEN(s);
	if (p == end || *p < '1' || *p > '9') {
		return false;
	}
	int64_t v = 0;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9') {
			return false;
		}
		int d = *p - '0';
		if (v > (INT64_MAX - d) / 10) {
			return false;
		}
		v = v * 10 + d;
	}
	*id = v;
	return true;
}

ZEND_METHOD(Ephpm_Queue, retry)
{
	zend_string *id_str = NULL;
	int64_t id = -1, moved; /* -1: every dead job */
	const ephpm_kv_ops *ops;
	ZEND_PARSE_PARAMETERS_START(0, 1)
		Z_PARAM_OPTIONAL
		Z_PARAM_STR_OR_NULL(id_str)
	ZEND_PARSE_PARAMETERS_END();
	if (id_str && !parse_job_id(id_str, &id)) {
		zend_argument_value_error(1, "must be a job id (a positive decimal integer, as push() returns) or null");
		RETURN_THROWS();
	}
	ephpm_queue *q = this_queue(execute_data, &ops);
	if (!q) {
		RETURN_THROWS();
	}
	ephpm_kv_error err;
	if (ops->queue_retry(STR_ARGS(q->name), q->max_attempts, id, &moved, &err) < 0) {
		ephpm_throw_store_error(&err);
		RETURN_THROWS();
	}
	RETURN_LONG(moved);
}

ZEND_METHOD(Ephpm_Job, __construct)
{
	/* private: jobs come from Queue::pop() */
}

/* The job this method was called on and the ops table; NULL with an
 * exception pending. */
static ephpm_job *this_job(zend_execute_data *execute_data, const ephpm_kv_ops **ops)
{
	*ops = queue_ops();
	return *ops ? job_from(Z_OBJ_P(ZEND_THIS)) : NULL;
}

/* 1 or 0 as a bool; a store error thrown. */
static void return_delivery_result(int rc, const ephpm_kv_error *err, zval *return_value)
{
	if (rc < 0) {
		ephpm_throw_store_error(err);
		RETURN_THROWS();
	}
	RETURN_BOOL(rc == 1);
}

ZEND_METHOD(Ephpm_Job, ack)
{
	const ephpm_kv_ops *ops;
	ZEND_PARSE_PARAMETERS_NONE();
	ephpm_job *job = this_job(execute_data, &ops);
	if (!job) {
		RETURN_THROWS();
	}
	ephpm_kv_error err;
	int rc = ops->queue_ack(STR_ARGS(job->queue), job->id, job->token, EPHPM_TOKEN_LEN, &err);
	return_delivery_result(rc, &err, return_value);
}

ZEND_METHOD(Ephpm_Job, release)
{
	double delay = 0;
	int64_t delay_ns;
	const ephpm_kv_ops *ops;
	ZEND_PARSE_PARAMETERS_START(0, 1)
		Z_PARAM_OPTIONAL
		Z_PARAM_DOUBLE(delay)
	ZEND_PARSE_PARAMETERS_END();
	if (!delay_arg(delay, 1, &delay_ns)) {
		RETURN_THROWS();
	}
	ephpm_job *job = this_job(execute_data, &ops);
	if (!job) {
		RETURN_THROWS();
	}
	ephpm_kv_error err;
	int rc = ops->queue_release(STR_ARGS(job->queue), job->id, job->token, EPHPM_TOKEN_LEN, delay_ns, &err);
	return_delivery_result(rc, &err, return_value);
}

ZEND_METHOD(Ephpm_Job, touch)
{
	const ephpm_kv_ops *ops;
	ZEND_PARSE_PARAMETERS_NONE();
	ephpm_job *job = this_job(execute_data, &ops);
	if (!job) {
		RETURN_THROWS();
	}
	ephpm_kv_error err;
	int rc = ops->queue_touch(STR_ARGS(job->queue), job->id, job->token, EPHPM_TOKEN_LEN, job->visibility_ns, &err);
	return_delivery_result(rc, &err, return_value);
}
