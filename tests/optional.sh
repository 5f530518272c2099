#!/bin/sh
# SPDX-License-Identifier: MIT
# <sbxspawn/optional.h> builds either way: against the C library alone
# (strict C99 and C++11, nothing linked but libc) and against the built
# library (HAVE_SBXSPAWN=1); the same program runs both ways, and each
# public name of <sbxspawn/sbxspawn.h> is one of the fallback's too.
set -eu
inc="$top_srcdir/include"
libdir="$top_builddir/lib/.libs"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Every function, macro and enumerator of the public header, but its
# version and its guard, which describe the library itself.
hdr="$inc/sbxspawn/sbxspawn.h"
{
	grep -oE '\bsbx_[a-z0-9_]+ *\(' "$hdr" | sed 's/ *($//'
	grep -oE '^#define SBX_[A-Z0-9_]+' "$hdr" | sed 's/^#define //'
	grep -oE '^[[:space:]]*SBX_[A-Z0-9_]+( = [0-9]+)?,?' "$hdr" | sed -E 's/^[[:space:]]*//; s/[ =,].*//'
} | grep -vE '^(SBX_VERSION_|SBX_RESTRICT$)' | sort -u > "$tmp/names"
{
	echo '#include <sbxspawn/optional.h>'
	echo 'int main(void) {'
	while read -r name; do
		case $name in
		SBX_EVENT_BIT) echo "(void)SBX_EVENT_BIT(1);" ;;
		sbx_*) echo "(void)&$name;" ;;
		*) echo "(void)($name);" ;;
		esac
	done < "$tmp/names"
	echo 'return 0; }'
} > "$tmp/names.c"
# shellcheck disable=SC2086
${CC:-cc} -std=c99 -pedantic -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L ${CFLAGS:-} -I"$inc" \
	-c "$tmp/names.c" -o "$tmp/names.o"
echo "optional: the fallback has all $(wc -l < "$tmp/names") names of <sbxspawn/sbxspawn.h>"

cat > "$tmp/user.c" <<'PROG'
#include <sbxspawn/optional.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%d: %s\n", __LINE__, #c); return 1; } } while (0)

static int run_status(pid_t pid)
{
	int st;

	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(int argc, char **argv)
{
	char sh[] = "sh", c[] = "-c", cmd[] = "echo said; exit 3", buf[64] = "";
	char *args[] = { sh, c, cmd, NULL };
	char deny[] = "OPT_SBX_DENY=/nonexistent/opt", require[] = "OPT_SBX_REQUIRE=1";
	char blank[] = "OPT_SBX_DENY=::";
	char *env_deny[] = { deny, NULL }, *env_require[] = { deny, require, NULL };
	char *env_blank[] = { blank, NULL };
	sbx_file_actions_t fa;
	sbx_scopeattr_t s;
	int fd, configured = -1, empty = -1, status;
	pid_t pid;

	CHECK(argc == 2);
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	/* A spawn with file actions and no scope: posix_spawn, either way. */
	CHECK(sbx_file_actions_init(&fa) == 0);
	CHECK(sbx_file_actions_adddup2(&fa, fd, 1) == 0);
	/* POSIX has no chdir action: glibc's _np one, where it declares it. */
	status = sbx_file_actions_addchdir(&fa, "/");
	CHECK(status == 0 || (!SBX_OPTIONAL_LIBRARY && status == ENOTSUP));
	CHECK(sbx_posix_spawn(&pid, "/bin/sh", &fa, NULL, NULL, args, environ) == 0);
	CHECK(run_status(pid) == 3);
	CHECK(pread(fd, buf, sizeof(buf) - 1, 0) == 5 && !strcmp(buf, "said\n"));
	CHECK(sbx_file_actions_destroy(&fa) == 0);

	/* The convention: nothing configured, then a denial. */
	CHECK(sbx_scopeattr_init(&s) == 0);
	CHECK(sbx_scopeattr_readenv(&s, "OPT_SBX", env_blank, &configured) == 0 && configured == 0);
	CHECK(sbx_scopeattr_isempty(&s, &empty) == 0 && empty == 1);
	CHECK(sbx_scopeattr_readenv(&s, "OPT_SBX", env_deny, &configured) == 0 && configured == 1);
	CHECK(sbx_scopeattr_isempty(&s, &empty) == 0 && empty == 0);
	/* Run with it twice (said once, without the library). */
	CHECK(sbx_system("exit 4", &s) == 4 << 8);
	CHECK(sbx_posix_spawnp(&pid, "sh", NULL, NULL, &s, args, environ) == 0);
	CHECK(run_status(pid) == 3);
	CHECK(sbx_system(NULL, &s) == 1);
	CHECK(sbx_scopeattr_destroy(&s) == 0);

	/* Required: without the library, refused with ENOTSUP; with it, run
	 * where there is Landlock (not in its portable build). */
	CHECK(sbx_scopeattr_init(&s) == 0);
	CHECK(sbx_scopeattr_readenv(&s, "OPT_SBX", env_require, NULL) == 0);
	errno = 0;
	status = sbx_system("exit 4", &s);
	if (SBX_OPTIONAL_LIBRARY)
		CHECK(status == 4 << 8 || (status == -1 && errno == ENOTSUP));
	else
		CHECK(status == -1 && errno == ENOTSUP);
	CHECK(sbx_scopeattr_destroy(&s) == 0);

	/* Dying with its parent: the library's (not its portable build's),
	 * refused without it. */
	CHECK(sbx_scopeattr_init(&s) == 0);
	CHECK(sbx_scopeattr_setevents(&s, 0) == 0);
	CHECK(sbx_scopeattr_setflags(&s, SBX_SCOPE_DIE_WITH_PARENT) == 0);
	status = sbx_posix_spawnp(&pid, "sh", NULL, NULL, &s, args, environ);
	if (SBX_OPTIONAL_LIBRARY)
		CHECK((status == 0 && run_status(pid) == 3) || status == SBX_EREFUSED);
	else
		CHECK(status == SBX_EREFUSED);
	CHECK(sbx_scopeattr_destroy(&s) == 0);

	CHECK(strstr(sbx_strerror(SBX_EREFUSED), "refused"));
	/* Without the library, ENOTSUP names the cause (a required scope). */
	CHECK(SBX_OPTIONAL_LIBRARY || strstr(sbx_strerror(ENOTSUP), "built without libsbxspawn"));
	CHECK(!strcmp(sbx_strerror(ENOENT), strerror(ENOENT)));
	CHECK(sbx_system("exit 5", NULL) == 5 << 8);
	printf("%s\n", SBX_OPTIONAL_LIBRARY ? "library" : "fallback");
	return 0;
}
PROG

# Runs $1 (a built program) and checks what it says: $2 on stdout, and
# the unconfined notice $3 times on stderr.
run() {
	"$1" "$tmp/out" > "$tmp/stdout" 2> "$tmp/stderr" || { cat "$tmp/stderr"; exit 1; }
	grep -qx "$2" "$tmp/stdout" || { echo "optional: $1 says $(cat "$tmp/stdout"), not $2"; exit 1; }
	n=$(grep -c 'built without libsbxspawn' "$tmp/stderr" || true)
	[ "$n" -eq "$3" ] || { echo "optional: the notice said $n times:"; cat "$tmp/stderr"; exit 1; }
}

# shellcheck disable=SC2086
${CC:-cc} -std=c99 -pedantic -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L ${CFLAGS:-} \
	-I"$inc" "$tmp/user.c" ${LDFLAGS:-} -o "$tmp/fallback"
if ${NM:-nm} "$tmp/fallback" | grep -q ' U sbx_'; then
	echo "optional: the fallback build calls the library"
	exit 1
fi
run "$tmp/fallback" fallback 1
# shellcheck disable=SC2086
${CC:-cc} -std=c99 -pedantic -Wall -Wextra -Werror -D_GNU_SOURCE ${CFLAGS:-} \
	-I"$inc" "$tmp/user.c" ${LDFLAGS:-} -o "$tmp/fallback-default"
run "$tmp/fallback-default" fallback 1
echo "optional: builds and runs against the C library alone (C99 -pedantic; POSIX, and _GNU_SOURCE)"
# shellcheck disable=SC2086
${CC:-cc} -std=c99 -pedantic -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -DHAVE_SBXSPAWN=1 \
	${CFLAGS:-} -I"$inc" "$tmp/user.c" ${LDFLAGS:-} -L"$libdir" -lsbxspawn -o "$tmp/library"
LD_LIBRARY_PATH="$libdir" run "$tmp/library" library 0
echo "optional: builds and runs against the library with HAVE_SBXSPAWN=1"
if command -v "${CXX:-c++}" >/dev/null 2>&1; then
	cp "$tmp/user.c" "$tmp/user.cc"
	# shellcheck disable=SC2086
	${CXX:-c++} -std=c++11 -pedantic -Wall -Wextra -Werror ${CFLAGS:-} -I"$inc" "$tmp/user.cc" \
		${LDFLAGS:-} -o "$tmp/fallback++"
	run "$tmp/fallback++" fallback 1
	echo "optional: builds and runs as C++11 against the C library alone"
else
	echo "optional: SKIP C++ check, no C++ compiler"
fi
