# SPDX-License-Identifier: MIT
# SBX_CHECK_CHECK
# Check, the testing library of the suites and of libsbxspawn-testing, as
# the chosen compiler sees it: pkg-config finds a check.pc, and a program
# that includes <check.h> and calls it compiles and links with $CC, $CFLAGS
# and $LDFLAGS.  pkg-config alone is not enough: it finds the build
# machine's Check whatever the compiler (glibc's under CC=musl-gcc, the
# build machine's in a cross build without a sysroot), and the build then
# fails at check.h.
#
# Sets have_check to yes or no, CHECK_CFLAGS and CHECK_LIBS, and, where
# Check is not usable, sbx_no_check: the one line that says what is left out
# and how to get it, for configure's end and for 'make check'.
AC_DEFUN([SBX_CHECK_CHECK], [
  PKG_CHECK_MODULES([CHECK], [check >= 0.11], [have_check=yes], [have_check=no])
  AS_IF([test "x$have_check" = xyes], [
    AC_CACHE_CHECK([whether Check compiles and links with $CC], [sbx_cv_check_links], [
      sbx_saved_CFLAGS=$CFLAGS
      sbx_saved_LIBS=$LIBS
      CFLAGS="$CFLAGS $CHECK_CFLAGS"
      LIBS="$CHECK_LIBS $LIBS"
      AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <check.h>]],
          [[Suite *s = suite_create("s");
            SRunner *r = srunner_create(s);
            srunner_run_all(r, CK_SILENT);
            return srunner_ntests_failed(r);]])],
        [sbx_cv_check_links=yes], [sbx_cv_check_links=no])
      CFLAGS=$sbx_saved_CFLAGS
      LIBS=$sbx_saved_LIBS])
    AS_IF([test "x$sbx_cv_check_links" != xyes], [
      have_check=no
      sbx_no_check="the tests and libsbxspawn-testing are left out: the Check that pkg-config found does not compile and link with CC=$CC (build Check with this compiler, then configure with PKG_CONFIG_PATH=<its prefix>/lib/pkgconfig)"])],
    [sbx_no_check="the tests and libsbxspawn-testing are left out: no Check found by pkg-config (check >= 0.11; Debian: apt-get install check; or configure with PKG_CONFIG_PATH=<its prefix>/lib/pkgconfig for a Check built with CC=$CC)"])
  AC_SUBST([SBX_NO_CHECK], [$sbx_no_check])
])
