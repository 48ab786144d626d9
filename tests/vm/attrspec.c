// SPDX-License-Identifier: GPL-2.0
/*
 * Attributes written on the command line of the test helpers as
 * TYPE:KIND:VALUE, KIND one of u8, u16, u32, u64, str, hex, flag (an
 * attribute without payload; VALUE is ignored).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ktgen.h"
#include "attrspec.h"

int attrspec_put(struct nlmsghdr *nlh, const char *spec)
{
	char kind[8], val[1024];
	unsigned int type;
	uint64_t v = 0;

	if (sscanf(spec, "%u:%7[^:]:%1023s", &type, kind, val) != 3)
		return -EINVAL;
	if (strcmp(kind, "str") && strcmp(kind, "hex") && strcmp(kind, "flag") &&
	    parse_u64(val, &v))
		return -EINVAL;
	if (!strcmp(kind, "flag")) {
		mnl_attr_put(nlh, type, 0, NULL);
	} else if (!strcmp(kind, "u8")) {
		mnl_attr_put_u8(nlh, type, v);
	} else if (!strcmp(kind, "u16")) {
		mnl_attr_put_u16(nlh, type, v);
	} else if (!strcmp(kind, "u32")) {
		mnl_attr_put_u32(nlh, type, v);
	} else if (!strcmp(kind, "u64")) {
		mnl_attr_put_u64(nlh, type, v);
	} else if (!strcmp(kind, "str")) {
		mnl_attr_put_strz(nlh, type, val);
	} else if (!strcmp(kind, "hex")) {
		unsigned char b[512];
		size_t i, n = strlen(val) / 2;

		if (n > sizeof(b))
			return -EINVAL;
		for (i = 0; i < n; i++)
			if (sscanf(val + 2 * i, "%2hhx", &b[i]) != 1)
				return -EINVAL;
		mnl_attr_put(nlh, type, n, b);
	} else {
		return -EINVAL;
	}
	return 0;
}
