#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"
#include "ext/standard/html.h"
#include "zend_smart_str.h"

#include "ephpm_escape.h"

/* The letter of a control byte's short escape (\n), or 0. */
static char short_escape(unsigned char c)
{
	switch (c) {
	case '\a': return 'a';
	case '\b': return 'b';
	case '\f': return 'f';
	case '\n': return 'n';
	case '\r': return 'r';
	case '\t': return 't';
	case '\v': return 'v';
	}
	return 0;
}

/* Controls, spaces other than ' ', and characters that are invisible or
 * reorder text: what Go's %q also escapes among them. */
static bool invisible(unsigned int cp)
{
	return (cp >= 0x80 && cp <= 0xa0) || cp == 0xad || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200f)
		|| (cp >= 0x2028 && cp <= 0x202f) || (cp >= 0x205f && cp <= 0x206f) || cp == 0x3000 || cp == 0xfeff;
}

zend_string *ephpm_escape(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	smart_str out = {0};
	size_t i = 0;
	while (i < len) {
		unsigned char c = p[i];
		if (c >= 0x20 && c < 0x7f) {
			if (c == '\\' || c == '"') {
				smart_str_appendc(&out, '\\');
			}
			smart_str_appendc(&out, c);
			i++;
			continue;
		}
		if (c < 0x80) {
			char letter = short_escape(c);
			if (letter) {
				smart_str_appendc(&out, '\\');
				smart_str_appendc(&out, letter);
			} else {
				smart_str_append_printf(&out, "\\x%02x", c);
			}
			i++;
			continue;
		}
		size_t next = i;
		zend_result status;
		unsigned int cp = php_next_utf8_char(p, len, &next, &status);
		if (status == FAILURE) {
			smart_str_append_printf(&out, "\\x%02x", c);
			i++; /* only this byte: the next may start a character */
		} else if (invisible(cp)) {
			smart_str_append_printf(&out, "\\u%04x", cp);
			i = next;
		} else {
			smart_str_appendl(&out, s + i, next - i);
			i = next;
		}
	}
	return smart_str_extract(&out);
}
