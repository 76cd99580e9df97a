/* Names, keys and session ids in messages: binary-safe and readable. */
#ifndef EPHPM_ESCAPE_H
#define EPHPM_ESCAPE_H

#include "php.h"

/* s as it reads between double quotes, as Go's %q shows it (the Go side's
 * messages quote keys so): '\' and '"' are escaped, control bytes are \n,
 * \t... or \xNN (NUL is \x00), bytes that are not UTF-8 are \xNN, and
 * UTF-8 controls, spaces other than ' ' and characters that are invisible or
 * reorder text (e.g. U+00A0, U+200B, U+202E) are \uNNNN; other UTF-8 is kept.
 * The caller releases the result. */
zend_string *ephpm_escape(const char *s, size_t len);

#endif
