#ifndef EPHPM_SESSION_H
#define EPHPM_SESSION_H

#include "ext/session/php_session.h"

PS_FUNCS_UPDATE_TIMESTAMP(ephpm);

extern const ps_module ps_mod_ephpm;

#endif
