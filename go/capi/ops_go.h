/* The ABI's const types under names cgo can spell: an exported Go function
 * that takes them has exactly its op's type, so the ops table points at it
 * with no adapter in between. */
#ifndef EPHPM_OPS_GO_H
#define EPHPM_OPS_GO_H
#include "ephpm_kv_ops.h"

typedef const char ephpm_cchar;
typedef const size_t ephpm_csize;
typedef ephpm_cchar *const ephpm_ckey;
typedef const ephpm_kv_config ephpm_cconfig;
typedef const ephpm_kv_tls ephpm_ctls;
#endif
