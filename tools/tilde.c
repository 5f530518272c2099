/* SPDX-License-Identifier: MIT */
/*
 * "~" at the start of a path option's value.  A shell expands it at the
 * start of a word only: in "--deny=~/.ssh" the "~" follows "=" and reaches
 * sbxrun as it is, where it would name a directory "~" in the working
 * directory, which does not exist: the denial would protect nothing.  So
 * sbxrun expands it itself, as the shell would have in "--deny ~/.ssh",
 * and refuses one it cannot expand rather than deny a name that is not
 * there.
 */
#include "config.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat/compat.h"
#include "tools/tilde.h"

const char *tilde_expand(const char *arg, char *out, size_t cap, char *why, size_t whycap)
{
	const char *rest, *home = NULL;
	char user[256];
	size_t len;

	if (arg[0] != '~')
		return arg;
	rest = strchrnul(arg, '/');
	len = (size_t)(rest - arg - 1);
	if (len == 0) {
		const struct passwd *pw;

		home = getenv("HOME");
		if ((!home || !*home) && (pw = getpwuid(getuid())))
			home = pw->pw_dir;
		if (!home || !*home) {
			snprintf(why, whycap, "'~' names the home directory, and neither HOME nor the "
			         "password database gives one: give the path whole");
			return NULL;
		}
	} else {
		const struct passwd *pw;

		if (len >= sizeof(user)) {
			snprintf(why, whycap, "'%.*s' is no user name: give the path whole", (int)len + 1, arg);
			return NULL;
		}
		memcpy(user, arg + 1, len);
		user[len] = '\0';
		if (!(pw = getpwnam(user)) || !pw->pw_dir || !*pw->pw_dir) {
			snprintf(why, whycap, "no user '%s' has a home directory to expand '~%s' to: give "
			         "the path whole (./~%s names a file called so)", user, user, user);
			return NULL;
		}
		home = pw->pw_dir;
	}
	if ((size_t)snprintf(out, cap, "%s%s", home, rest) >= cap) {
		snprintf(why, whycap, "'%s' expanded is too long", arg);
		return NULL;
	}
	return out;
}
